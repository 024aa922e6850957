package org.roce4j.testcontainers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A connection to one of QEMU's character devices (a serial port or QMP), on a Unix socket or a TCP port of
 * 127.0.0.1, as plain streams; closing either stream closes the connection.
 */
interface GuestChannel extends AutoCloseable
{
    /**
     * @return what QEMU writes.
     */
    InputStream in();

    /**
     * @return to QEMU.
     */
    OutputStream out();

    /**
     * Close the connection; never throws.
     */
    void close();

    /**
     * @param port a TCP port of 127.0.0.1.
     * @return the connection.
     * @throws IOException when nothing listens there.
     */
    static GuestChannel tcp(final int port) throws IOException
    {
        final Socket socket = new Socket();
        try
        {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            socket.setTcpNoDelay(true);
        }
        catch (final IOException ex)
        {
            socket.close();
            throw ex;
        }
        return new Streams(socket.getInputStream(), socket.getOutputStream(), socket);
    }

    /**
     * A Unix domain stream socket. Its streams call the channel directly, so one thread may block in a read while
     * another writes (a blocking {@link SocketChannel} has separate read and write locks; the streams of
     * {@code java.nio.channels.Channels} share one lock on JDK 17, and a blocked read there would stall every write).
     *
     * @param path the socket's file.
     * @return the connection.
     * @throws IOException when nothing listens there.
     */
    static GuestChannel unix(final Path path) throws IOException
    {
        final SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            channel.connect(UnixDomainSocketAddress.of(path));
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
        final InputStream in = new InputStream()
        {
            public int read() throws IOException
            {
                final byte[] one = new byte[1];
                return -1 == read(one, 0, 1) ? -1 : one[0] & 0xFF;
            }

            public int read(final byte[] bytes, final int offset, final int length) throws IOException
            {
                return 0 == length ? 0 : channel.read(ByteBuffer.wrap(bytes, offset, length));
            }

            public void close() throws IOException
            {
                channel.close();
            }
        };
        final OutputStream out = new OutputStream()
        {
            public void write(final int b) throws IOException
            {
                write(new byte[] {(byte)b}, 0, 1);
            }

            public void write(final byte[] bytes, final int offset, final int length) throws IOException
            {
                final ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
                while (buffer.hasRemaining())
                {
                    channel.write(buffer);
                }
            }

            public void close() throws IOException
            {
                channel.close();
            }
        };
        return new Streams(in, out, channel);
    }

    /**
     * Streams over a connection, and what closes it.
     *
     * @param in         what QEMU writes.
     * @param out        to QEMU.
     * @param connection the socket or channel.
     */
    record Streams(InputStream in, OutputStream out, AutoCloseable connection) implements GuestChannel
    {
        public void close()
        {
            try
            {
                connection.close();
            }
            catch (final Exception ignore)
            {
                // nothing to do: QEMU is gone
            }
        }
    }
}
