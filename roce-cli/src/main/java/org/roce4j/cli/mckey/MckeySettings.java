package org.roce4j.cli.mckey;

import java.net.InetAddress;

/**
 * The options of one {@code roce mckey} run, as mckey.c's globals hold them.
 *
 * @param sender       -s: send (else receive).
 * @param group        -m: the multicast group's IP address.
 * @param bind         -b: the local address to bind, or null.
 * @param connections  -c: identifiers, each joining the group with a QP of its own.
 * @param messageCount -C: messages each identifier sends or receives.
 * @param messageSize  -S: bytes per message.
 * @param sendOnly     -o: join as a send-only full member (the QP is not attached).
 * @param pauseMs      milliseconds between the joins and the data transfers (mckey's sleep(3), "to give SM chance
 *                     to configure switches"; also what lets a receiver in another process join before the sender
 *                     sends).
 * @param timeoutMs    roce4j: how long the receiver waits for its messages (0: forever, as mckey).
 */
public record MckeySettings(
    boolean sender,
    InetAddress group,
    InetAddress bind,
    int connections,
    int messageCount,
    int messageSize,
    boolean sendOnly,
    long pauseMs,
    long timeoutMs)
{
    /** mckey.c's default message count (-C). */
    public static final int DEFAULT_MESSAGE_COUNT = 10;
    /** mckey.c's default message size (-S). */
    public static final int DEFAULT_MESSAGE_SIZE = 100;
    /** mckey.c's sleep(3) after the joins. */
    public static final long DEFAULT_PAUSE_MS = 3000;

    /**
     * @param isSender the role.
     * @return these settings in that role.
     */
    public MckeySettings role(final boolean isSender)
    {
        return new MckeySettings(isSender, group, bind, connections, messageCount, messageSize, sendOnly, pauseMs,
            timeoutMs);
    }

    /**
     * @param address the local address to bind, or null.
     * @return these settings bound there.
     */
    public MckeySettings bindTo(final InetAddress address)
    {
        return new MckeySettings(sender, group, address, connections, messageCount, messageSize, sendOnly, pauseMs,
            timeoutMs);
    }
}
