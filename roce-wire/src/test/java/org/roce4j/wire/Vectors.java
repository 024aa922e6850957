package org.roce4j.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.roce4j.wire.pcap.PcapReader;

/**
 * The real rxe captures copied from {@code ../shared/vectors} into test resources, loaded as lists of frames.
 */
public final class Vectors
{
    /** rxe talking to rxe: every opcode family, CM MADs, all ICRCs good. */
    public static final String RXE_PAIR = "rxe-pair-ibverbs-perftest-rping.pcap";
    /** ibv_rc_pingpong against a userspace peer at 10.77.0.1. */
    public static final String RXE_VS_PEER = "rxe-vs-userspace-peer-rc-pingpong.pcap";
    /** rping's unanswered CM REQs. */
    public static final String RPING_REQ = "rxe-rping-cm-req-unanswered.pcap";
    /** A peer at 10.77.0.1 sending through a default kernel socket: its ICRCs are wrong, rxe's are right. */
    public static final String NEGATIVE_IPID = "NEGATIVE-ipid-nonzero-icrc-dropped-by-rxe.pcap";
    /** All of them. */
    public static final String[] ALL = {RXE_PAIR, RXE_VS_PEER, RPING_REQ, NEGATIVE_IPID};

    private Vectors()
    {
    }

    /**
     * @param name of a capture in the vectors resource folder.
     * @return its records in order.
     */
    public static List<byte[]> frames(final String name)
    {
        final InputStream in = Vectors.class.getResourceAsStream("/vectors/" + name);
        if (null == in)
        {
            throw new IllegalStateException("missing test resource /vectors/" + name);
        }
        try (PcapReader reader = PcapReader.open(name, in))
        {
            final List<byte[]> frames = new ArrayList<>();
            while (reader.next())
            {
                frames.add(reader.copyRecord());
            }
            return frames;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
