import sys,collections
rows=collections.defaultdict(list); pr=collections.defaultdict(list)
for l in open(sys.argv[1]):
    l=l.strip()
    if l.startswith('pready '):
        v=l.split()[1].rstrip(':'); rest=l.split(': ',1)[1]
        if rest[0].isdigit():
            p=rest.split(','); pr[int(p[0])].append((v,[float(x) for x in p[1:]]))
    elif l.startswith(('old,','new,')):
        p=l.split(',')
        if len(p) < 6: print("ERR", l[:100]); continue
        if p[1].startswith("np"):
            v,np,b,comp,grid=p[0],p[1],p[2],p[3],p[4]; val=float(p[6]); rows[(b+' '+np,comp,grid)].append((v,val))
        else:
            v,b,comp,grid=p[0],p[1],p[2],p[3]; val=float(p[5]); rows[(b,comp,grid)].append((v,val))
        continue
    elif 'rror' in l: print('ERR', l)
print("pready_real: grid: plain / MPIX_Pready_block / pre  [old runs | new runs]")
for g in sorted(pr):
    o=[x for v,x in pr[g] if v=='old']; n=[x for v,x in pr[g] if v=='new']
    print(f"{g:6d}  old " + ' | '.join('%.1f/%.1f/%.1f'%(x[0],x[1],x[2]) for x in o) + "   new " + ' | '.join('%.1f/%.1f/%.1f'%(x[0],x[1],x[2]) for x in n))
for k in sorted(rows, key=lambda k:(k[0],k[1],int(k[2]))):
    o=[x for v,x in rows[k] if v=='old']; n=[x for v,x in rows[k] if v=='new']
    r = (sum(n)/len(n))/(sum(o)/len(o)) if o and n else 0
    print(f"{k[0]:18s} {k[1]:28s} {k[2]:>6s}  old {' / '.join('%.2f'%x for x in o):20s} new {' / '.join('%.2f'%x for x in n):20s} new/old {r:.3f}")
