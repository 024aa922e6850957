package org.roce4j.transport.link.fault;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FaultCounts} and {@link FaultReport}: the line a faulty link prints and reading it back from a command's
 * output.
 */
class FaultReportTest
{
    private static final FaultCounts TX = new FaultCounts(12, 3, 2, 1, 5, 0);
    private static final FaultCounts RX = new FaultCounts(9, 0, 4, 0, 1, 7);

    @Test
    void countsWriteEveryKindInOrder()
    {
        assertEquals("drop=12 dup=3 reorder=2 delay=1 corrupt=5 ecn=0", TX.toString());
        assertEquals(TX, FaultCounts.parse(TX.toString()));
        assertEquals(new FaultCounts(21, 3, 6, 1, 6, 7), TX.plus(RX));
        assertEquals(TX, TX.plus(FaultCounts.NONE));
    }

    @Test
    void malformedCountsAreRefusedNamingTheToken()
    {
        final IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
            () -> FaultCounts.parse("drop=1 dup=2"));
        assertTrue(missing.getMessage().contains("'drop=1 dup=2'"), missing.getMessage());
        final IllegalArgumentException order = assertThrows(IllegalArgumentException.class,
            () -> FaultCounts.parse("dup=1 drop=2 reorder=0 delay=0 corrupt=0 ecn=0"));
        assertTrue(order.getMessage().contains("expected drop=N at 'dup=1'"), order.getMessage());
        final IllegalArgumentException number = assertThrows(IllegalArgumentException.class,
            () -> FaultCounts.parse("drop=x dup=2 reorder=0 delay=0 corrupt=0 ecn=0"));
        assertTrue(number.getMessage().contains("not a count: 'drop=x'"), number.getMessage());
    }

    @Test
    void reportLineReadsBackFromACommandsOutput()
    {
        final FaultReport report = new FaultReport("drop=0.02,op=send;dup=0.01;seed=7", 7, TX, RX);
        assertEquals("faults 'drop=0.02,op=send;dup=0.01;seed=7' (seed 7) injected: tx drop=12 dup=3 reorder=2 " +
            "delay=1 corrupt=5 ecn=0; rx drop=9 dup=0 reorder=4 delay=0 corrupt=1 ecn=7", report.toString());
        assertEquals(new FaultCounts(21, 3, 6, 1, 6, 7), report.total());
        final String output = "  local address:  LID 0x0000\n" + report + "\n" + "pcap: 12 frames recorded to x\n";
        assertEquals(List.of(report), FaultReport.find(output));
        assertEquals(List.of(report), FaultReport.find(report + "\r\n"), "a line ended by CRLF");
    }

    @Test
    void everyFaultyLinksLineIsFoundPrefixedWithItsName()
    {
        final FaultReport client = new FaultReport("ecn=1,every=3;seed=-1", -1, TX, FaultCounts.NONE);
        final FaultReport server = new FaultReport("ecn=1,every=3;seed=-1", -1, FaultCounts.NONE, RX);
        assertEquals(List.of(client, server), FaultReport.find("memory:10.0.0.1: " + client + "\nmemory:10.0.0.2: " +
            server + "\n"));
        assertEquals(List.of(), FaultReport.find("40 iters in 0.01 seconds\n"));
    }

    @Test
    void aLineWithTheFormButBadCountsIsAnError()
    {
        assertThrows(IllegalArgumentException.class,
            () -> FaultReport.find("faults 'x' (seed 1) injected: tx drop=1; rx drop=2"));
    }
}
