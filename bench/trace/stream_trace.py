#!/usr/bin/env python3
"""Where a stream-copied epoch's time goes (bench/trace/README.md,
"Stream-ordered epochs"), from the sender's and the receiver's traces of a
plugin built with -DPART_UCX_STREAM_TRACE, two ranks on one GPU (one
%globaltimer):

  stream_trace.py SENDER_TRACE RECEIVER_TRACE [--last N]

Each "GT e t0..t7" line holds epoch e's stamps: the sender's copy wait
(t0 entry, t1 marks seen, t2 ready-to-receive seen) and finishing kernel
(t3 entry, t4 end), the receiver's counted wait (t5 entry, t6 done seen,
t7 end, with the next epoch's joined start). Prints the medians over the
last N epochs (default 200) that have every stamp and the epoch before."""
import statistics
import sys

STEPS = [
    ("sender: previous finish's end -> copy wait's entry", lambda p, s, r: s[0] - p[4]),
    ("copy wait: entry -> every mark seen", lambda p, s, r: s[1] - s[0]),
    ("copy wait: marks -> ready-to-receive seen", lambda p, s, r: s[2] - s[1]),
    ("ready-to-receive -> finish's entry (the copy)", lambda p, s, r: s[3] - s[2]),
    ("finishing kernel: entry -> end", lambda p, s, r: s[4] - s[3]),
    ("receiver: finish's end -> done seen", lambda p, s, r: r[6] - s[4]),
    ("receiver: done seen -> wait's end (next start written)", lambda p, s, r: r[7] - r[6]),
    ("receiver's wait entry -> sender's finish end", lambda p, s, r: s[4] - r[5]),
    ("receiver's next start -> sender's next ready-to-receive seen", None),
    ("period (finish end to finish end)", lambda p, s, r: s[4] - p[4]),
]


def load(path):
    recs = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 10 and w[0] == "GT":
                recs[int(w[1])] = [int(x) for x in w[2:]]
    return recs


def main():
    args = sys.argv[1:]
    last = 200
    if "--last" in args:
        i = args.index("--last")
        last = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    snd, rcv = load(args[0]), load(args[1])
    epochs = [e for e in sorted(snd) if e in rcv and e - 1 in snd and e + 1 in snd
              and all(snd[e][i] for i in range(5)) and all(rcv[e][i] for i in (5, 6, 7))
              and snd[e - 1][4]][-last:]
    if not epochs:
        sys.exit("no epoch with every stamp")
    print(f"{len(epochs)} epochs ({epochs[0]}..{epochs[-1]}), us, median:")
    for name, f in STEPS:
        if f is None:
            vals = [snd[e + 1][2] - rcv[e][7] for e in epochs if snd[e + 1][2]]
        else:
            vals = [f(snd[e - 1], snd[e], rcv[e]) for e in epochs]
        print(f"  {name:62s} {statistics.median(vals) / 1000:8.2f}")


if __name__ == "__main__":
    main()
