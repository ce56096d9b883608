/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Info keys ("mpix_*") of the init calls: the values of an enumerated key
 * are those of the MCA parameter it overrides (the same enumerator), so
 * that both accept the same names.
 */

#include "ompi_config.h"

#include "opal/util/info.h"
#include "ompi/info/info.h"

#include "part_ucx.h"

int mca_part_ucx_info_enum(ompi_info_t *info, const char *key, mca_part_ucx_enum_id_t id,
                           int *value)
{
    int flag = 0, v;

    if (NULL == info || MPI_INFO_NULL == info || NULL == mca_part_ucx_module.enums[id]) {
        return MPI_SUCCESS;
    }
    if (OPAL_SUCCESS != opal_info_get_value_enum(&info->super, key, &v, *value,
                                                 mca_part_ucx_module.enums[id], &flag)) {
        return MPI_ERR_INFO_VALUE;
    }
    *value = v;
    return MPI_SUCCESS;
}

int mca_part_ucx_info_bool(ompi_info_t *info, const char *key, bool *value)
{
    bool v = *value;
    int flag = 0;

    if (NULL == info || MPI_INFO_NULL == info) {
        return MPI_SUCCESS;
    }
    if (OPAL_SUCCESS != opal_info_get_bool(&info->super, key, &v, &flag)) {
        return MPI_ERR_INFO_VALUE;
    }
    *value = flag ? v : *value;
    return MPI_SUCCESS;
}

int mca_part_ucx_info_int(ompi_info_t *info, const char *key, int min, int *value)
{
    opal_cstring_t *str = NULL;
    int flag = 0, n = 0, rc = MPI_SUCCESS;

    if (NULL == info || MPI_INFO_NULL == info ||
        OPAL_SUCCESS != opal_info_get(&info->super, key, &str, &flag) || !flag) {
        return MPI_SUCCESS;
    }
    if (OPAL_SUCCESS != opal_cstring_to_int(str, &n) || n < min) {
        rc = MPI_ERR_INFO_VALUE;
    } else {
        *value = n;
    }
    OBJ_RELEASE(str);
    return rc;
}
