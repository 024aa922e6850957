package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.HeaderFlyweight;

/**
 * The common header of every Management Datagram (IBA 13.4.2 "Management datagram format"; struct ib_mad_hdr in
 * include/rdma/ib_mad.h). On RoCEv2 a MAD is the 256-byte payload of a UD SEND to QP1 (the GSI); the class data
 * (for the CM class, a {@link CmMessage}) follows these 24 bytes.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  BaseVersion  |   MgmtClass   |  ClassVersion |R|   Method    |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Status             |         ClassSpecific         |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |   8
 *  +                     TransactionID (64)                        +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          AttributeID          |           Reserved            |  16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    AttributeModifier (32)                     |  20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * R is the response bit of the method byte (IB_MGMT_METHOD_RESP 0x80); {@link MadMethod} names the 7 method bits.
 * The kernel CM sends base version 1, class 0x07 (CM), class version 2, method 0x03 (Send) for every CM message
 * (cm.c cm_format_mad_hdr), and builds the TID from its MAD agent's hi_tid (high 32 bits) and the local comm ID in
 * network order (low 32 bits), so the TID's low word reads byte-swapped against the comm ID on a little-endian host.
 */
public final class MadHeader extends HeaderFlyweight
{
    /** Length of the common MAD header (IB_MGMT_MAD_HDR). */
    public static final int LENGTH = 24;
    /** Length of a whole MAD on the wire (IB_MGMT_MAD_SIZE). */
    public static final int MAD_LENGTH = 256;
    /** Class data after the common header (IB_MGMT_MAD_DATA). */
    public static final int DATA_LENGTH = MAD_LENGTH - LENGTH;

    /** Offset of the base version. */
    public static final int BASE_VERSION_OFFSET = 0;
    /** Offset of the management class. */
    public static final int MGMT_CLASS_OFFSET = 1;
    /** Offset of the class version. */
    public static final int CLASS_VERSION_OFFSET = 2;
    /** Offset of the R bit and method. */
    public static final int METHOD_OFFSET = 3;
    /** Offset of the status. */
    public static final int STATUS_OFFSET = 4;
    /** Offset of the class-specific field. */
    public static final int CLASS_SPECIFIC_OFFSET = 6;
    /** Offset of the 64-bit transaction ID. */
    public static final int TRANSACTION_ID_OFFSET = 8;
    /** Offset of the attribute ID. */
    public static final int ATTRIBUTE_ID_OFFSET = 16;
    /** Offset of the reserved 16 bits. */
    public static final int RESERVED_OFFSET = 18;
    /** Offset of the attribute modifier. */
    public static final int ATTRIBUTE_MODIFIER_OFFSET = 20;

    /** The only base version IBA defines (IB_MGMT_BASE_VERSION). */
    public static final int BASE_VERSION = 1;
    /** Class version of the CM class the Linux CM speaks (IB_CM_CLASS_VERSION). */
    public static final int CM_CLASS_VERSION = 2;
    /** Response bit of the method byte (IB_MGMT_METHOD_RESP). */
    public static final int RESPONSE_BIT = 0x80;
    /** Method bits of the method byte. */
    public static final int METHOD_MASK = 0x7F;

    /** Status bit 0: the responder is busy (IB_MGMT_MAD_STATUS_BUSY). */
    public static final int STATUS_BUSY = 0x0001;
    /** Status bit 1: redirection required (IB_MGMT_MAD_STATUS_REDIRECT_REQD). */
    public static final int STATUS_REDIRECT = 0x0002;
    /** Status bits 4..2: the invalid-field code (IBA table 127 "MAD common status field bit values"). */
    public static final int STATUS_INVALID_FIELD_MASK = 0x001C;
    /** Shift of the invalid-field code. */
    public static final int STATUS_INVALID_FIELD_SHIFT = 2;
    /** Status bits 15..8: class-specific status. */
    public static final int STATUS_CLASS_SPECIFIC_MASK = 0xFF00;

    private static final String[] INVALID_FIELD_NAMES =
    {
        "no invalid fields", "bad base or class version", "method not supported",
        "method/attribute combination not supported", "reserved code 4", "reserved code 5", "reserved code 6",
        "invalid value in attribute or modifier"
    };

    /** {@inheritDoc} */
    public MadHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 24.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return base version (1).
     */
    public int baseVersion()
    {
        return u8(BASE_VERSION_OFFSET);
    }

    /**
     * @param version base version.
     * @return this.
     */
    public MadHeader baseVersion(final int version)
    {
        u8(BASE_VERSION_OFFSET, version);
        return this;
    }

    /**
     * @return management class code, see {@link ManagementClass}.
     */
    public int mgmtClass()
    {
        return u8(MGMT_CLASS_OFFSET);
    }

    /**
     * @param mgmtClass management class code.
     * @return this.
     */
    public MadHeader mgmtClass(final int mgmtClass)
    {
        u8(MGMT_CLASS_OFFSET, mgmtClass);
        return this;
    }

    /**
     * @return class version.
     */
    public int classVersion()
    {
        return u8(CLASS_VERSION_OFFSET);
    }

    /**
     * @param version class version.
     * @return this.
     */
    public MadHeader classVersion(final int version)
    {
        u8(CLASS_VERSION_OFFSET, version);
        return this;
    }

    /**
     * @return the whole method byte, response bit included (0x03 Send, 0x81 GetResp...).
     */
    public int method()
    {
        return u8(METHOD_OFFSET);
    }

    /**
     * @param method the whole method byte, response bit included.
     * @return this.
     */
    public MadHeader method(final int method)
    {
        u8(METHOD_OFFSET, method);
        return this;
    }

    /**
     * @return true when the response bit (R) is set.
     */
    public boolean isResponse()
    {
        return 0 != (u8(METHOD_OFFSET) & RESPONSE_BIT);
    }

    /**
     * @param response new value of the R bit; the method bits are kept.
     * @return this.
     */
    public MadHeader response(final boolean response)
    {
        bit(METHOD_OFFSET, RESPONSE_BIT, response);
        return this;
    }

    /**
     * @return status (0 for requests and successful responses).
     */
    public int status()
    {
        return u16(STATUS_OFFSET);
    }

    /**
     * @param status status.
     * @return this.
     */
    public MadHeader status(final int status)
    {
        u16(STATUS_OFFSET, status);
        return this;
    }

    /**
     * @return the class-specific 16 bits.
     */
    public int classSpecific()
    {
        return u16(CLASS_SPECIFIC_OFFSET);
    }

    /**
     * @param value the class-specific 16 bits.
     * @return this.
     */
    public MadHeader classSpecific(final int value)
    {
        u16(CLASS_SPECIFIC_OFFSET, value);
        return this;
    }

    /**
     * @return transaction ID, chosen by the requester and echoed in the response.
     */
    public long transactionId()
    {
        return i64(TRANSACTION_ID_OFFSET);
    }

    /**
     * @param tid transaction ID.
     * @return this.
     */
    public MadHeader transactionId(final long tid)
    {
        i64(TRANSACTION_ID_OFFSET, tid);
        return this;
    }

    /**
     * @return attribute ID; for the CM class see {@link CmAttribute}.
     */
    public int attributeId()
    {
        return u16(ATTRIBUTE_ID_OFFSET);
    }

    /**
     * @param attributeId attribute ID.
     * @return this.
     */
    public MadHeader attributeId(final int attributeId)
    {
        u16(ATTRIBUTE_ID_OFFSET, attributeId);
        return this;
    }

    /**
     * @return the reserved 16 bits after the attribute ID.
     */
    public int reserved()
    {
        return u16(RESERVED_OFFSET);
    }

    /**
     * @param value the reserved 16 bits.
     * @return this.
     */
    public MadHeader reserved(final int value)
    {
        u16(RESERVED_OFFSET, value);
        return this;
    }

    /**
     * @return attribute modifier (the Linux CM puts ECE information here, cm_format_mad_ece_hdr).
     */
    public int attributeModifier()
    {
        return i32(ATTRIBUTE_MODIFIER_OFFSET);
    }

    /**
     * @param modifier attribute modifier.
     * @return this.
     */
    public MadHeader attributeModifier(final int modifier)
    {
        i32(ATTRIBUTE_MODIFIER_OFFSET, modifier);
        return this;
    }

    /**
     * Write the header the Linux CM puts on every CM message: base version 1, class CM, class version 2, method
     * Send, status 0, class-specific 0, reserved 0.
     *
     * @param attribute     CM message kind.
     * @param transactionId transaction ID.
     * @return this.
     */
    public MadHeader cm(final CmAttribute attribute, final long transactionId)
    {
        return baseVersion(BASE_VERSION)
            .mgmtClass(ManagementClass.CM.code())
            .classVersion(CM_CLASS_VERSION)
            .method(MadMethod.SEND.code())
            .status(0)
            .classSpecific(0)
            .transactionId(transactionId)
            .attributeId(attribute.id())
            .reserved(0)
            .attributeModifier(0);
    }

    /**
     * Describe a status value, e.g. "success", "busy, method not supported". Allocates: for tools only.
     *
     * @param status the 16-bit status.
     * @return the description.
     */
    public static String describeStatus(final int status)
    {
        if (0 == status)
        {
            return "success";
        }
        final StringBuilder sb = new StringBuilder();
        if (0 != (status & STATUS_BUSY))
        {
            sb.append("busy");
        }
        if (0 != (status & STATUS_REDIRECT))
        {
            sb.append(sb.length() > 0 ? ", " : "").append("redirect required");
        }
        final int invalidField = (status & STATUS_INVALID_FIELD_MASK) >>> STATUS_INVALID_FIELD_SHIFT;
        if (0 != invalidField)
        {
            sb.append(sb.length() > 0 ? ", " : "").append(INVALID_FIELD_NAMES[invalidField]);
        }
        final int classSpecific = (status & STATUS_CLASS_SPECIFIC_MASK) >>> 8;
        if (0 != classSpecific)
        {
            sb.append(sb.length() > 0 ? ", " : "").append("class-specific 0x")
                .append(Integer.toHexString(classSpecific));
        }
        if (0 == sb.length())
        {
            sb.append("reserved bits 0x").append(Integer.toHexString(status));
        }
        return sb.toString();
    }
}
