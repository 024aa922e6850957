package org.roce4j.transport.link.fault;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code --faults} grammar: what each rule becomes, per direction, and errors that name the rule and token.
 */
class FaultSpecTest
{
    @Test
    void theIssuesExampleGivesARuleEachWayAndOneForReceiveOnly()
    {
        final FaultSpec spec = FaultSpec.parse("drop=0.02;reorder=0.01,dir=rx;seed=7");
        assertEquals(7, spec.seed());
        assertEquals(1, spec.tx().size(), "drop on send");
        assertEquals(2, spec.rx().size(), "drop and reorder on receive");
        assertEquals("DROP p=0.02 limit=unlimited hits=0", spec.tx().get(0).get().toString());
        assertEquals("REORDER laterFrames=1 p=0.01 limit=unlimited hits=0", spec.rx().get(1).get().toString());
    }

    @Test
    void everyActionAndOption()
    {
        assertRule("drop=1,op=ack,times=3,dir=tx", "DROP operation=[ACKNOWLEDGE] limit=3 hits=0");
        assertRule("dup=0.5,dir=tx", "DUPLICATE copies=1 p=0.5 limit=unlimited hits=0");
        assertRule("reorder=1,by=3,every=10,dir=tx", "REORDER laterFrames=3 every=10 limit=unlimited hits=0");
        assertRule("corrupt=0.005,opcode=RC_SEND_FIRST|rc_send_middle,dir=tx",
            "CORRUPT_PAYLOAD opcode=[RC_SEND_FIRST,RC_SEND_MIDDLE] p=0.005 limit=unlimited hits=0");
        assertRule("ecn=1,transport=rc|uc,qpn=0x11,dir=tx",
            "ECN transport=[RC,UC] qpn=0x11 limit=unlimited hits=0");
        assertRule("delay=2.5,p=0.1,psn=100-200,skip=4,dir=tx",
            "DELAY delayNs=2500000 psn=100..200 skip=4 p=0.1 limit=unlimited hits=0");
        assertRule("drop=1,opcode=0x11,dir=tx", "DROP opcode=[RC_ACKNOWLEDGE] limit=unlimited hits=0");
        assertEquals(FaultSpec.DEFAULT_SEED, FaultSpec.parse("drop=0.1").seed(), "a fixed seed without seed=N");
        assertEquals(0x2A, FaultSpec.parse("seed=0x2a;drop=0.1").seed(), "the seed may come first, in hex");
    }

    @Test
    void errorsNameTheRuleAndTheToken()
    {
        assertError("drop=2", "rule 1 'drop=2': 'drop=2': the probability must be between 0 and 1");
        assertError("drop=0.1;dup=x", "rule 2 'dup=x': 'dup=x': 'x' is not a number");
        assertError("drop=0.1,dup=0.1", "'dup=0.1': a rule has one action and 'drop=0.1' came first");
        assertError("dir=rx", "rule 1 'dir=rx': no action");
        assertError("drop=0.1,dir=up", "'dir=up': dir is tx or rx");
        assertError("drop=0.1,opcode=RC_SEND_FOO", "'opcode=RC_SEND_FOO': unknown opcode 'RC_SEND_FOO'");
        assertError("drop=0.1,op=sned", "'op=sned': unknown operation class 'sned' (known: ack, atomic_ack");
        assertError("drop=0.1,transport=xrc", "'transport=xrc': transport is rc, uc, ud or cnp");
        assertError("drop=0.1,qpn=0x1000000", "'qpn=0x1000000': 0x1000000 is out of range 0..16777215");
        assertError("drop=0.1,psn=9-5", "'psn=9-5': the PSN range ends before it starts");
        assertError("drop=0.1,every=0", "'every=0': 0 is out of range 1..");
        assertError("drop=0.1,p=0.5", "p=P goes with delay only; drop=0.1 already is the probability");
        assertError("drop=0.1,by=2", "by=N goes with reorder only");
        assertError("delay=0", "'delay=0': a delay is more than 0 and at most 60000 ms");
        assertError("drop=0.1,colour=red", "'colour=red': unknown option 'colour' (actions: drop, dup, reorder");
        assertError("drop=0.1,dir=tx,dir=rx", "'dir' given twice");
        assertError("drop=0.1;;seed=1", "rule 2 '': empty rule");
        assertError("drop=0.1,", "empty option");
        assertError("drop", "'drop' is not KEY=VALUE");
        assertError("seed=1,drop=0.1", "seed=N is a rule of its own");
        assertError("seed=1;seed=2;drop=0.1", "seed given twice");
        assertError("seed=x;drop=0.1", "'x' is not a number");
        assertError("seed=1", "no fault rule, only a seed");
        assertError(" ", "--faults needs at least one rule");
    }

    private static void assertRule(final String text, final String expected)
    {
        final FaultSpec spec = FaultSpec.parse(text);
        final List<java.util.function.Supplier<FaultRule>> rules = text.contains("dir=rx") ? spec.rx() : spec.tx();
        assertEquals(1, rules.size(), text);
        assertEquals(expected, rules.get(0).get().toString(), text);
    }

    private static void assertError(final String text, final String fragment)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> FaultSpec.parse(text),
            text);
        assertTrue(ex.getMessage().contains(fragment), () -> "'" + ex.getMessage() + "' lacks '" + fragment + "'");
        if (!text.isBlank())
        {
            assertTrue(ex.getMessage().startsWith("--faults '" + text + "'"), ex.getMessage());
        }
    }
}
