package org.roce4j.cm.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;

import org.roce4j.cm.oob.OobProtocolException;

/**
 * perftest's exchange over one TCP connection (ethernet_write_data / ethernet_read_data and ethernet_write_keys /
 * ethernet_read_keys in perftest_communication.c): fixed-size writes and reads, the client writing first in each
 * exchange, QP records in the ASCII form of {@link PerftestKeyMessage}, and after the closing handshake the 5 bytes
 * {@code "done\0"}, which perftest 4.5 writes and never reads.
 */
public final class PerftestTcpChannel implements PerftestChannel
{
    /** What perftest 4.5 writes after the closing handshake (sizeof "done"). */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final boolean client;
    private final boolean withGid;
    private final String peer;
    private boolean closed;

    /**
     * @param socket  the connected socket (the channel owns it).
     * @param client  true on the side that connected.
     * @param withGid true to send QP records in the 108-byte form with GID (RoCE); both sides must agree.
     * @param timeout longest wait for each read until {@link #readTimeout} changes it.
     * @throws IOException when the socket cannot be set up.
     */
    public PerftestTcpChannel(final Socket socket, final boolean client, final boolean withGid, final Duration timeout)
        throws IOException
    {
        this.socket = socket;
        this.client = client;
        this.withGid = withGid;
        this.peer = socket.getInetAddress().getHostAddress() + ":" + socket.getPort();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(millis(timeout));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * @return true for the side that connected.
     */
    public boolean isClient()
    {
        return client;
    }

    /**
     * @param local this side's bytes.
     * @return the peer's.
     * @throws IOException see {@link PerftestChannel#exchange}.
     */
    public byte[] exchange(final byte[] local) throws IOException
    {
        return swap(local, local.length, "data");
    }

    /**
     * @param local this side's record.
     * @return the peer's.
     * @throws IOException see {@link PerftestChannel#exchangeDest}.
     */
    public PerftestDest exchangeDest(final PerftestDest local) throws IOException
    {
        final byte[] message = PerftestKeyMessage.encode(local, withGid);
        return PerftestKeyMessage.decode(swap(message, message.length, "QP record"), withGid);
    }

    /**
     * Write {@code "done\0"} as perftest 4.5 does, close our direction, and read what the peer still sends until it
     * closes: its own {@code "done\0"} (perftest up to 6.06) or nothing (6.07 and later dropped it). Reading first
     * means our close never resets the connection under a peer that is still writing. A peer that already closed
     * is not an error: the closing handshake before this has synchronised both sides.
     *
     * @throws IOException when the peer sends anything but its "done".
     */
    public void finish() throws IOException
    {
        try
        {
            out.write(DONE);
            out.flush();
            socket.shutdownOutput();
        }
        catch (final SocketException ex)
        {
            return;
        }
        final byte[] rest = new byte[DONE.length + 1];
        int got = 0;
        try
        {
            while (got < rest.length)
            {
                final int n = in.read(rest, got, rest.length - got);
                if (n < 0)
                {
                    break;
                }
                got += n;
            }
        }
        catch (final SocketTimeoutException | SocketException ex)
        {
            return;
        }
        if (0 != got && !(DONE.length == got && java.util.Arrays.equals(DONE, java.util.Arrays.copyOf(rest, got))))
        {
            throw new OobProtocolException("after the closing handshake the peer sent '" +
                PerftestKeyMessage.printable(java.util.Arrays.copyOf(rest, got)) + "' (" + got +
                " bytes) instead of \"done\"");
        }
    }

    /**
     * @param timeout longest wait for each following read; Duration.ZERO waits forever.
     * @throws IOException when the socket refuses it.
     */
    public void readTimeout(final Duration timeout) throws IOException
    {
        socket.setSoTimeout(millis(timeout));
    }

    /**
     * @return the peer's address and port.
     */
    public String peer()
    {
        return peer;
    }

    /**
     * Close the connection. Idempotent.
     *
     * @throws IOException when closing fails.
     */
    public void close() throws IOException
    {
        if (!closed)
        {
            closed = true;
            socket.close();
        }
    }

    private byte[] swap(final byte[] local, final int length, final String what) throws IOException
    {
        if (client)
        {
            write(local, what);
            return read(length, what);
        }
        final byte[] remote = read(length, what);
        write(local, what);
        return remote;
    }

    private void write(final byte[] bytes, final String what) throws IOException
    {
        try
        {
            out.write(bytes);
            out.flush();
        }
        catch (final SocketException ex)
        {
            // The peer is gone (reset); reported as EOF so a client may retry, as for a close before any answer.
            final EOFException eof = new EOFException("could not send our " + what + " to " + peer + ": " +
                ex.getMessage());
            eof.initCause(ex);
            throw eof;
        }
    }

    private byte[] read(final int length, final String what) throws IOException
    {
        final byte[] bytes = new byte[length];
        int done = 0;
        try
        {
            while (done < length)
            {
                final int n = in.read(bytes, done, length - done);
                if (n < 0)
                {
                    if (0 == done)
                    {
                        throw new EOFException(peer + " closed the connection instead of sending its " + what);
                    }
                    throw new OobProtocolException("truncated " + what + " from " + peer + ": " + done + " of " +
                        length + " bytes");
                }
                done += n;
            }
        }
        catch (final SocketTimeoutException ex)
        {
            throw new OobProtocolException("timed out waiting for the " + what + " from " + peer + " (" + done +
                " of " + length + " bytes)", ex);
        }
        catch (final SocketException ex)
        {
            if (0 == done)
            {
                // A reset before any byte is a close before any answer (QEMU's forwarding closes that way too).
                final EOFException eof = new EOFException(peer + " closed the connection instead of sending its " +
                    what + " (" + ex.getMessage() + ")");
                eof.initCause(ex);
                throw eof;
            }
            throw new OobProtocolException("connection to " + peer + " failed while reading its " + what + ": " +
                ex.getMessage(), ex);
        }
        return bytes;
    }

    private static int millis(final Duration timeout)
    {
        // Duration.ZERO waits forever (SO_TIMEOUT 0), as perftest's blocking read() does.
        return timeout.isZero() ? 0 : (int)Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }
}
