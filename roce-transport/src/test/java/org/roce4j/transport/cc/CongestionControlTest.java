package org.roce4j.transport.cc;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.cc.CongestionControl.Param;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CongestionControlTest
{
    @Test
    void defaultsAreConnectX5sWhole()
    {
        // NVIDIA "DCQCN Parameters" and an mlxconfig query of a ConnectX-4 Lx (see CongestionControl's Javadoc);
        // line_rate, cnp_ecn and cnp_udp_sport are roce4j's.
        final Map<String, Long> expected = new java.util.LinkedHashMap<>();
        expected.put("rate_to_set_on_first_cnp", 0L);
        expected.put("clamp_tgt_rate", 0L);
        expected.put("clamp_tgt_rate_after_time_inc", 1L);
        expected.put("rpg_time_reset", 300L);
        expected.put("rpg_byte_reset", 32767L);
        expected.put("rpg_threshold", 1L);
        expected.put("rpg_max_rate", 0L);
        expected.put("rpg_ai_rate", 5L);
        expected.put("rpg_hai_rate", 50L);
        expected.put("rpg_gd", 11L);
        expected.put("rpg_min_dec_fac", 50L);
        expected.put("rpg_min_rate", 1L);
        expected.put("dce_tcp_g", 1019L);
        expected.put("dce_tcp_rtt", 1L);
        expected.put("rate_reduce_monitor_period", 4L);
        expected.put("initial_alpha_value", 1023L);
        expected.put("min_time_between_cnps", 4L);
        expected.put("cnp_dscp", 48L);
        expected.put("cnp_ecn", 2L);
        expected.put("cnp_udp_sport", 0L);
        expected.put("line_rate", 25000L);
        assertEquals(expected, CongestionControl.DCQCN.parameters());
        assertEquals(0xC2, CongestionControl.DCQCN.cnpTrafficClass(), "DSCP 48, ECT(0): the ConnectX-4 Lx capture");
    }

    @Test
    void parsesModesAndParameters()
    {
        assertFalse(CongestionControl.parse("none").enabled());
        assertTrue(CongestionControl.parse("dcqcn").enabled());
        final CongestionControl cc =
            CongestionControl.parse(" DCQCN, rpg_time_reset=1200 ,rpg_ai_rate=1,rpg_hai_rate=10");
        assertEquals(1200, cc.get(Param.RPG_TIME_RESET));
        assertEquals(1, cc.get(Param.RPG_AI_RATE));
        assertEquals(10, cc.get(Param.RPG_HAI_RATE));
        assertEquals("dcqcn,rpg_time_reset=1200,rpg_ai_rate=1,rpg_hai_rate=10", cc.toString());
        assertEquals(cc.parameters(), CongestionControl.parse(cc.toString()).parameters(), "toString reads back");
        assertEquals("none", CongestionControl.NONE.toString());
    }

    @Test
    void rejectsBadTextWithAClearMessage()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CongestionControl.parse("tcp")).getMessage()
            .contains("expected none or dcqcn"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> CongestionControl.parse("dcqcn,rpg_foo=1")).getMessage().contains("rpg_time_reset"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> CongestionControl.parse("dcqcn,rpg_gd=x")).getMessage().contains("not a whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> CongestionControl.parse("dcqcn,dce_tcp_g=1024")).getMessage().contains("0..1023"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> CongestionControl.parse("none,rpg_gd=10")).getMessage().contains("takes no parameters"));
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.parse("dcqcn,rpg_gd"));
    }

    @Test
    void dataPacketsAreEct0OnlyWithDcqcn()
    {
        assertEquals(0x68 | 2, CongestionControl.DCQCN.dataTrafficClass(0x69), "ECN bits replaced by ECT(0)");
        assertEquals(0x69, CongestionControl.NONE.dataTrafficClass(0x69));
        assertEquals(10_000_000_000L, CongestionControl.parse("dcqcn,line_rate=10000").maxRateBps());
        assertEquals(4_000_000_000L, CongestionControl.parse("dcqcn,line_rate=10000,rpg_max_rate=4000").maxRateBps());
    }
}
