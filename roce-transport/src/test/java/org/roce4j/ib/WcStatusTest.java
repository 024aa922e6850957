package org.roce4j.ib;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The whole status table against libibverbs: values of enum ibv_wc_status and the texts of ibv_wc_status_str()
 * (rdma-core libibverbs/enum_strs.c), which the tools print.
 */
class WcStatusTest
{
    @Test
    void everyStatusHasItsLibibverbsValueAndText()
    {
        final List<String> expected = List.of(
            "0 SUCCESS success",
            "1 LOC_LEN_ERR local length error",
            "2 LOC_QP_OP_ERR local QP operation error",
            "3 LOC_EEC_OP_ERR local EE context operation error",
            "4 LOC_PROT_ERR local protection error",
            "5 WR_FLUSH_ERR Work Request Flushed Error",
            "6 MW_BIND_ERR memory management operation error",
            "7 BAD_RESP_ERR bad response error",
            "8 LOC_ACCESS_ERR local access error",
            "9 REM_INV_REQ_ERR remote invalid request error",
            "10 REM_ACCESS_ERR remote access error",
            "11 REM_OP_ERR remote operation error",
            "12 RETRY_EXC_ERR transport retry counter exceeded",
            "13 RNR_RETRY_EXC_ERR RNR retry counter exceeded",
            "14 LOC_RDD_VIOL_ERR local RDD violation error",
            "15 REM_INV_RD_REQ_ERR remote invalid RD request",
            "16 REM_ABORT_ERR aborted error",
            "17 INV_EECN_ERR invalid EE context number",
            "18 INV_EEC_STATE_ERR invalid EE context state",
            "19 FATAL_ERR fatal error",
            "20 RESP_TIMEOUT_ERR response timeout error",
            "21 GENERAL_ERR general error");
        final List<String> actual = new ArrayList<>();
        for (final WcStatus status : WcStatus.values())
        {
            actual.add(status.verbsValue() + " " + status + " " + status.description());
            assertEquals(status, WcStatus.fromOrdinal(status.verbsValue()));
        }
        assertEquals(expected, actual);
    }
}
