package org.roce4j.transport.link.pcap;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import org.agrona.concurrent.UnsafeBuffer;
import org.pcap4j.core.PcapHandle;

/**
 * The two libpcap calls on the pcap link's per-frame paths, called through a JNA direct mapping with raw addresses
 * instead of through Pcap4J, which allocates a header object, pointer wrappers and a byte array per frame read and
 * copies every frame sent from a Java array to native memory.
 *
 * <ul>
 *   <li>{@link #next}: {@code pcap_next_ex} on a handle set non-blocking; the frame is left where libpcap put it
 *   (its capture ring) and read in place until the next call.</li>
 *   <li>{@link #send}: {@code pcap_sendpacket} from native memory.</li>
 * </ul>
 *
 * <p>The {@code pcap_t*} comes from Pcap4J's {@link PcapHandle} (its private {@code handle} field, read once by
 * reflection); where that or the library cannot be reached, {@link #unavailabilityCause()} says why and the link
 * uses Pcap4J's own calls ({@code -Droce4j.pcap.direct=false} forces that). {@code struct pcap_pkthdr} on LP64 Linux: {@code struct timeval ts} (16 bytes),
 * {@code bpf_u_int32 caplen} at 16, {@code bpf_u_int32 len} at 20. Not thread safe: one instance per reading
 * thread.
 */
final class LibpcapDirect
{
    /** pcap_next_ex: a frame was read. */
    static final int FRAME = 1;
    /** pcap_next_ex: nothing waiting (non-blocking) or the read timeout expired. */
    static final int NONE = 0;
    /** Offset of caplen in struct pcap_pkthdr (LP64: after a 16-byte struct timeval). */
    private static final int CAPLEN_OFFSET = 16;
    /** Offset of len (the frame's length on the wire) in struct pcap_pkthdr. */
    private static final int LEN_OFFSET = 20;
    /** sizeof(struct pcap_pkthdr) on LP64 Linux. */
    private static final int PKTHDR_LENGTH = 24;

    private static final Throwable UNAVAILABILITY_CAUSE;
    private static final Field HANDLE_FIELD;

    static
    {
        Throwable cause = null;
        Field field = null;
        try
        {
            if (!Boolean.parseBoolean(System.getProperty("roce4j.pcap.direct", "true")))
            {
                throw new UnsupportedOperationException("switched off with -Droce4j.pcap.direct=false");
            }
            if (!Platform.isLinux() || !Platform.is64Bit())
            {
                throw new UnsupportedOperationException("struct pcap_pkthdr is laid out for 64-bit Linux here");
            }
            // The library Pcap4J loads (org.pcap4j.core.NativeMappings: property org.pcap4j.core.pcapLibName).
            Native.register(LibpcapDirect.class,
                NativeLibrary.getInstance(System.getProperty("org.pcap4j.core.pcapLibName", "pcap")));
            field = PcapHandle.class.getDeclaredField("handle");
            field.setAccessible(true);
        }
        catch (final Throwable ex)
        {
            cause = ex;
            field = null;
        }
        UNAVAILABILITY_CAUSE = cause;
        HANDLE_FIELD = field;
    }

    private final long pcap;
    private final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(2 * Long.BYTES));
    private final long outAddress = out.addressOffset();
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[0]);
    private long frameAddress;
    private int capturedLength;
    private int wireLength;

    /**
     * @param handle an open Pcap4J handle.
     */
    LibpcapDirect(final PcapHandle handle)
    {
        if (null != UNAVAILABILITY_CAUSE)
        {
            throw new IllegalStateException("direct libpcap calls are not available: " + UNAVAILABILITY_CAUSE,
                UNAVAILABILITY_CAUSE);
        }
        try
        {
            pcap = Pointer.nativeValue((Pointer)HANDLE_FIELD.get(handle));
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException("cannot read the pcap_t of " + handle, ex);
        }
    }

    /**
     * @return null when direct calls can be made here, otherwise why not.
     */
    static Throwable unavailabilityCause()
    {
        return UNAVAILABILITY_CAUSE;
    }

    /**
     * Read the next frame without blocking (the handle must be non-blocking).
     *
     * @return {@link #FRAME}, {@link #NONE}, or a negative libpcap status (-1 error, -2 pcap_breakloop).
     */
    int next()
    {
        final int status = pcap_next_ex(pcap, outAddress, outAddress + Long.BYTES);
        if (FRAME == status)
        {
            header.wrap(out.getLong(0, ByteOrder.nativeOrder()), PKTHDR_LENGTH);
            frameAddress = out.getLong(Long.BYTES, ByteOrder.nativeOrder());
            capturedLength = header.getInt(CAPLEN_OFFSET, ByteOrder.nativeOrder());
            wireLength = header.getInt(LEN_OFFSET, ByteOrder.nativeOrder());
        }
        return status;
    }

    /**
     * @return native address of the frame the last {@link #next} read (valid until the next call).
     */
    long frameAddress()
    {
        return frameAddress;
    }

    /**
     * @return bytes of that frame captured.
     */
    int capturedLength()
    {
        return capturedLength;
    }

    /**
     * @return that frame's length on the wire (more than captured when truncated by the snapshot length).
     */
    int wireLength()
    {
        return wireLength;
    }

    /**
     * Send one frame from native memory.
     *
     * @param address of the frame's first byte.
     * @param length  of the frame.
     * @return true when libpcap took it.
     */
    boolean send(final long address, final int length)
    {
        return 0 == pcap_sendpacket(pcap, address, length);
    }

    // CHECKSTYLE:OFF:MethodName - JNA direct mapping: each Java name is the C symbol it binds.
    private static native int pcap_next_ex(long pcap, long headerOut, long dataOut);

    private static native int pcap_sendpacket(long pcap, long buffer, int size);
    // CHECKSTYLE:ON:MethodName
}
