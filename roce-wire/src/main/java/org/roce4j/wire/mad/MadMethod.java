package org.roce4j.wire.mad;

/**
 * The method bits (6..0) of the MAD header's method byte (IBA 13.4.5 table 119 "Management datagram methods";
 * IB_MGMT_METHOD_* in ib_mad.h and IB_SA_METHOD_* in ib_sa.h). A response carries the same method with the
 * response bit {@link MadHeader#RESPONSE_BIT} set, so Get (0x01) is answered by GetResp (0x81). The CM class uses
 * only {@link #SEND}.
 */
public enum MadMethod
{
    /** 0x01: read an attribute. */
    GET(0x01, "Get"),
    /** 0x02: write an attribute. */
    SET(0x02, "Set"),
    /** 0x03: a datagram that needs no response MAD; every CM message is a Send. */
    SEND(0x03, "Send"),
    /** 0x05: unsolicited notice. */
    TRAP(0x05, "Trap"),
    /** 0x06: forward an event to a subscriber. */
    REPORT(0x06, "Report"),
    /** 0x07: stop a repeating trap. */
    TRAP_REPRESS(0x07, "TrapRepress"),
    /** 0x12: SA table query. */
    GET_TABLE(0x12, "GetTable"),
    /** 0x13: SA trace-table query. */
    GET_TRACE_TABLE(0x13, "GetTraceTable"),
    /** 0x14: SA multi-packet query. */
    GET_MULTI(0x14, "GetMulti"),
    /** 0x15: SA delete. */
    DELETE(0x15, "Delete");

    private static final MadMethod[] BY_CODE = new MadMethod[128];

    static
    {
        for (final MadMethod method : values())
        {
            BY_CODE[method.code] = method;
        }
    }

    private final int code;
    private final String displayName;

    MadMethod(final int code, final String displayName)
    {
        this.code = code;
        this.displayName = displayName;
    }

    /**
     * @return the 7-bit method code (response bit clear).
     */
    public int code()
    {
        return code;
    }

    /**
     * @return name without parentheses, e.g. "Get".
     */
    public String displayName()
    {
        return displayName;
    }

    /**
     * @param methodByte the whole method byte; the response bit is ignored.
     * @return the method, or null for a reserved or class-specific code.
     */
    public static MadMethod of(final int methodByte)
    {
        return BY_CODE[methodByte & MadHeader.METHOD_MASK];
    }

    /**
     * Name a method byte as Wireshark does, e.g. "Send()", "GetResp()", "method 0x7e". Allocates: for tools only.
     *
     * @param methodByte the whole method byte.
     * @return the name.
     */
    public static String describe(final int methodByte)
    {
        final MadMethod method = of(methodByte);
        final boolean response = 0 != (methodByte & MadHeader.RESPONSE_BIT);
        if (null == method)
        {
            return "method 0x" + Integer.toHexString(methodByte & 0xFF);
        }
        return method.displayName + (response ? "Resp()" : "()");
    }
}
