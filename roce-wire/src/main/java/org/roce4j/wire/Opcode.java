package org.roce4j.wire;

import java.util.Arrays;

import org.roce4j.wire.header.BthHeader;

import static org.roce4j.wire.ExtHeader.AETH;
import static org.roce4j.wire.ExtHeader.ATOMIC_ACK_ETH;
import static org.roce4j.wire.ExtHeader.ATOMIC_ETH;
import static org.roce4j.wire.ExtHeader.CNP_RESERVED;
import static org.roce4j.wire.ExtHeader.DETH;
import static org.roce4j.wire.ExtHeader.FETH;
import static org.roce4j.wire.ExtHeader.IETH;
import static org.roce4j.wire.ExtHeader.IMM_DT;
import static org.roce4j.wire.ExtHeader.RETH;
import static org.roce4j.wire.Operation.ACKNOWLEDGE;
import static org.roce4j.wire.Operation.ATOMIC_ACKNOWLEDGE;
import static org.roce4j.wire.Operation.ATOMIC_WRITE;
import static org.roce4j.wire.Operation.COMPARE_SWAP;
import static org.roce4j.wire.Operation.CONGESTION_NOTIFICATION;
import static org.roce4j.wire.Operation.FETCH_ADD;
import static org.roce4j.wire.Operation.FLUSH;
import static org.roce4j.wire.Operation.RDMA_READ_REQUEST;
import static org.roce4j.wire.Operation.RDMA_READ_RESPONSE;
import static org.roce4j.wire.Operation.RDMA_WRITE;
import static org.roce4j.wire.Operation.SEND;
import static org.roce4j.wire.Position.FIRST;
import static org.roce4j.wire.Position.LAST;
import static org.roce4j.wire.Position.MIDDLE;
import static org.roce4j.wire.Position.ONLY;
import static org.roce4j.wire.Transport.CNP;
import static org.roce4j.wire.Transport.RC;
import static org.roce4j.wire.Transport.UC;
import static org.roce4j.wire.Transport.UD;

/**
 * The opcode table, as data: every RoCEv2 opcode roce4j speaks, with its transport, operation, place in a message,
 * extension headers in wire order, header length and whether it carries payload.
 *
 * <p>Values and header orders follow IBA 9.2 table 39 and rxe_opcode.c; FLUSH (0x1C) and ATOMIC_WRITE (0x1D) come
 * from IBA 1.5 annex A19 as rxe implements them (FLUSH carries FETH then RETH and no payload; ATOMIC_WRITE carries
 * RETH and 8 bytes of payload); CNP (0x81) from annex A17.9.3. RD opcodes (0x40 base) are not listed: neither rxe
 * nor roce4j has RD QPs, so they parse as unknown.
 *
 * <p>Lookups by code ({@link #of(int)}) use a 256-entry array and never allocate. Header offsets are precomputed
 * per opcode ({@link #offsetOf(ExtHeader)}), so nothing on the packet path recomputes them.
 */
public enum Opcode
{
    /** 0x00. */
    RC_SEND_FIRST(0x00, RC, SEND, FIRST, true),
    /** 0x01. */
    RC_SEND_MIDDLE(0x01, RC, SEND, MIDDLE, true),
    /** 0x02. */
    RC_SEND_LAST(0x02, RC, SEND, LAST, true),
    /** 0x03. */
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, RC, SEND, LAST, true, IMM_DT),
    /** 0x04. */
    RC_SEND_ONLY(0x04, RC, SEND, ONLY, true),
    /** 0x05. */
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, RC, SEND, ONLY, true, IMM_DT),
    /** 0x06. */
    RC_RDMA_WRITE_FIRST(0x06, RC, RDMA_WRITE, FIRST, true, RETH),
    /** 0x07. */
    RC_RDMA_WRITE_MIDDLE(0x07, RC, RDMA_WRITE, MIDDLE, true),
    /** 0x08. */
    RC_RDMA_WRITE_LAST(0x08, RC, RDMA_WRITE, LAST, true),
    /** 0x09. */
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, RC, RDMA_WRITE, LAST, true, IMM_DT),
    /** 0x0A. */
    RC_RDMA_WRITE_ONLY(0x0A, RC, RDMA_WRITE, ONLY, true, RETH),
    /** 0x0B. */
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, RC, RDMA_WRITE, ONLY, true, RETH, IMM_DT),
    /** 0x0C. */
    RC_RDMA_READ_REQUEST(0x0C, RC, RDMA_READ_REQUEST, ONLY, false, RETH),
    /** 0x0D. */
    RC_RDMA_READ_RESPONSE_FIRST(0x0D, RC, RDMA_READ_RESPONSE, FIRST, true, AETH),
    /** 0x0E. */
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, RC, RDMA_READ_RESPONSE, MIDDLE, true),
    /** 0x0F. */
    RC_RDMA_READ_RESPONSE_LAST(0x0F, RC, RDMA_READ_RESPONSE, LAST, true, AETH),
    /** 0x10. */
    RC_RDMA_READ_RESPONSE_ONLY(0x10, RC, RDMA_READ_RESPONSE, ONLY, true, AETH),
    /** 0x11. */
    RC_ACKNOWLEDGE(0x11, RC, ACKNOWLEDGE, ONLY, false, AETH),
    /** 0x12. */
    RC_ATOMIC_ACKNOWLEDGE(0x12, RC, ATOMIC_ACKNOWLEDGE, ONLY, false, AETH, ATOMIC_ACK_ETH),
    /** 0x13. */
    RC_COMPARE_SWAP(0x13, RC, COMPARE_SWAP, ONLY, false, ATOMIC_ETH),
    /** 0x14. */
    RC_FETCH_ADD(0x14, RC, FETCH_ADD, ONLY, false, ATOMIC_ETH),
    /** 0x16. */
    RC_SEND_LAST_WITH_INVALIDATE(0x16, RC, SEND, LAST, true, IETH),
    /** 0x17. */
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, RC, SEND, ONLY, true, IETH),
    /** 0x1C. */
    RC_FLUSH(0x1C, RC, FLUSH, ONLY, false, FETH, RETH),
    /** 0x1D. */
    RC_ATOMIC_WRITE(0x1D, RC, ATOMIC_WRITE, ONLY, true, RETH),

    /** 0x20. */
    UC_SEND_FIRST(0x20, UC, SEND, FIRST, true),
    /** 0x21. */
    UC_SEND_MIDDLE(0x21, UC, SEND, MIDDLE, true),
    /** 0x22. */
    UC_SEND_LAST(0x22, UC, SEND, LAST, true),
    /** 0x23. */
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, UC, SEND, LAST, true, IMM_DT),
    /** 0x24. */
    UC_SEND_ONLY(0x24, UC, SEND, ONLY, true),
    /** 0x25. */
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, UC, SEND, ONLY, true, IMM_DT),
    /** 0x26. */
    UC_RDMA_WRITE_FIRST(0x26, UC, RDMA_WRITE, FIRST, true, RETH),
    /** 0x27. */
    UC_RDMA_WRITE_MIDDLE(0x27, UC, RDMA_WRITE, MIDDLE, true),
    /** 0x28. */
    UC_RDMA_WRITE_LAST(0x28, UC, RDMA_WRITE, LAST, true),
    /** 0x29. */
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, UC, RDMA_WRITE, LAST, true, IMM_DT),
    /** 0x2A. */
    UC_RDMA_WRITE_ONLY(0x2A, UC, RDMA_WRITE, ONLY, true, RETH),
    /** 0x2B. */
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x2B, UC, RDMA_WRITE, ONLY, true, RETH, IMM_DT),

    /** 0x64. */
    UD_SEND_ONLY(0x64, UD, SEND, ONLY, true, DETH),
    /** 0x65. */
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, UD, SEND, ONLY, true, DETH, IMM_DT),

    /** 0x81: RoCEv2 CNP. */
    CNP_NOTIFICATION(0x81, CNP, CONGESTION_NOTIFICATION, ONLY, false, CNP_RESERVED);

    private static final Opcode[] BY_CODE = new Opcode[256];

    static
    {
        for (final Opcode opcode : values())
        {
            BY_CODE[opcode.code] = opcode;
        }
    }

    private final int code;
    private final Transport transport;
    private final Operation operation;
    private final Position position;
    private final boolean hasPayload;
    private final ExtHeader[] extHeaders;
    private final int[] extOffsets;
    private final int extHeaderMask;
    private final int headerLength;

    Opcode(
        final int code,
        final Transport transport,
        final Operation operation,
        final Position position,
        final boolean hasPayload,
        final ExtHeader... extHeaders)
    {
        this.code = code;
        this.transport = transport;
        this.operation = operation;
        this.position = position;
        this.hasPayload = hasPayload;
        this.extHeaders = extHeaders;
        this.extOffsets = new int[ExtHeader.COUNT];
        Arrays.fill(extOffsets, -1);
        int length = BthHeader.LENGTH;
        int mask = 0;
        for (final ExtHeader header : extHeaders)
        {
            extOffsets[header.ordinal()] = length;
            length += header.length();
            mask |= 1 << header.ordinal();
        }
        this.extHeaderMask = mask;
        this.headerLength = length;
    }

    /**
     * @param code opcode byte from a BTH.
     * @return the opcode, or null when roce4j does not know it (reserved, RD, XRC, vendor).
     */
    public static Opcode of(final int code)
    {
        return BY_CODE[code & 0xFF];
    }

    /**
     * @return the opcode byte.
     */
    public int code()
    {
        return code;
    }

    /**
     * @return transport service (bits 7..5 of the code).
     */
    public Transport transport()
    {
        return transport;
    }

    /**
     * @return what the packet does.
     */
    public Operation operation()
    {
        return operation;
    }

    /**
     * @return place in the message.
     */
    public Position position()
    {
        return position;
    }

    /**
     * @return true when data may follow the headers (it may still be zero bytes long, e.g. a zero-length SEND).
     */
    public boolean hasPayload()
    {
        return hasPayload;
    }

    /**
     * @return number of extension headers.
     */
    public int extHeaderCount()
    {
        return extHeaders.length;
    }

    /**
     * @param index 0-based position among the extension headers.
     * @return the extension header at that position, in wire order.
     */
    public ExtHeader extHeader(final int index)
    {
        return extHeaders[index];
    }

    /**
     * @param header an extension header kind.
     * @return true when this opcode carries it.
     */
    public boolean has(final ExtHeader header)
    {
        return extOffsets[header.ordinal()] >= 0;
    }

    /**
     * @param header an extension header kind.
     * @return its offset from the start of the BTH, or -1 when this opcode does not carry it.
     */
    public int offsetOf(final ExtHeader header)
    {
        return extOffsets[header.ordinal()];
    }

    /**
     * For the parser's hot path: the extension headers as bits, bit {@code h.ordinal()} set when the opcode carries
     * header {@code h}, so the parser tests bits instead of walking the list with a switch.
     *
     * @return the bit set of carried extension headers (0 for none).
     */
    int extHeaderMask()
    {
        return extHeaderMask;
    }

    /**
     * For the parser's hot path: {@link #offsetOf(ExtHeader)} by the header's ordinal, a compile-time constant there.
     *
     * @param ordinal an {@link ExtHeader} ordinal.
     * @return its offset from the start of the BTH, or -1 when this opcode does not carry it.
     */
    int offsetOf(final int ordinal)
    {
        return extOffsets[ordinal];
    }

    /**
     * @return BTH plus extension headers, in bytes: where the payload starts relative to the BTH.
     */
    public int headerLength()
    {
        return headerLength;
    }

    /**
     * @return true for packets a requester sends (requests), false for responses (ACK, READ response, atomic
     *     ACK) and CNPs.
     */
    public boolean isRequest()
    {
        return RDMA_READ_RESPONSE != operation && ACKNOWLEDGE != operation && ATOMIC_ACKNOWLEDGE != operation &&
            CONGESTION_NOTIFICATION != operation;
    }

    /**
     * @return true when the BTH AckReq bit has a meaning: RC requests (IBA 9.2.1: AckReq is for reliable services).
     */
    public boolean canRequestAck()
    {
        return RC == transport && isRequest();
    }

    /**
     * @return true for the opcodes that carry immediate data.
     */
    public boolean hasImmediate()
    {
        return has(IMM_DT);
    }

    /**
     * @return true for SEND_*_WITH_INVALIDATE.
     */
    public boolean hasInvalidate()
    {
        return has(IETH);
    }

    /**
     * @return true for READ requests, atomics, FLUSH and ATOMIC_WRITE: the requests that use a responder resource
     *     (IRD/ORD, IBA 9.4.4) and are answered even without AckReq.
     */
    public boolean usesResponderResource()
    {
        return RDMA_READ_REQUEST == operation || COMPARE_SWAP == operation || FETCH_ADD == operation ||
            FLUSH == operation || ATOMIC_WRITE == operation;
    }
}
