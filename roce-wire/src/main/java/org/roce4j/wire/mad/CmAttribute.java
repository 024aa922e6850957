package org.roce4j.wire.mad;

/**
 * Attribute IDs of the Communication Management class: one per CM message (IBA 12.6 / 16.7 table 102 "CM
 * attributes"; CM_*_ATTR_ID in drivers/infiniband/core/cm_msgs.h). Display names are the ones Wireshark prints, the
 * short names the ones the IBA text and the kernel use. The private-data length is what the message carries after
 * its fields (enum ib_cm_data_size in include/rdma/ib_cm.h).
 */
public enum CmAttribute
{
    /** 0x0001: ClassPortInfo (redirect information; not sent by the Linux CM on RoCE). */
    CLASS_PORT_INFO(0x0001, "ClassPortInfo", "ClassPortInfo", 0),
    /** 0x0010: REQ, the active side's connection request. */
    CONNECT_REQUEST(0x0010, "ConnectRequest", "REQ", CmReqMessage.PRIVATE_DATA_LENGTH),
    /** 0x0011: MRA, message receipt acknowledgement ("I need more time"). */
    MSG_RCPT_ACK(0x0011, "MsgRcptAck", "MRA", CmMraMessage.PRIVATE_DATA_LENGTH),
    /** 0x0012: REJ, connection reject. */
    CONNECT_REJECT(0x0012, "ConnectReject", "REJ", CmRejMessage.PRIVATE_DATA_LENGTH),
    /** 0x0013: REP, the passive side's reply. */
    CONNECT_REPLY(0x0013, "ConnectReply", "REP", CmRepMessage.PRIVATE_DATA_LENGTH),
    /** 0x0014: RTU, ready to use: the active side's last handshake message. */
    READY_TO_USE(0x0014, "ReadyToUse", "RTU", CmRtuMessage.PRIVATE_DATA_LENGTH),
    /** 0x0015: DREQ, disconnect request. */
    DISCONNECT_REQUEST(0x0015, "DisconnectRequest", "DREQ", CmDreqMessage.PRIVATE_DATA_LENGTH),
    /** 0x0016: DREP, disconnect reply. */
    DISCONNECT_REPLY(0x0016, "DisconnectReply", "DREP", CmDrepMessage.PRIVATE_DATA_LENGTH),
    /** 0x0017: SIDR_REQ, service ID resolution request (UD). */
    SERVICE_ID_RES_REQ(0x0017, "ServiceIDResReq", "SIDR_REQ", CmSidrReqMessage.PRIVATE_DATA_LENGTH),
    /** 0x0018: SIDR_REP, service ID resolution response. */
    SERVICE_ID_RES_REQ_RESP(0x0018, "ServiceIDResReqResp", "SIDR_REP",
        CmSidrRepMessage.PRIVATE_DATA_LENGTH),
    /** 0x0019: LAP, load alternate path. */
    LOAD_ALTERNATE_PATH(0x0019, "LoadAlternatePath", "LAP", 168),
    /** 0x001A: APR, alternate path response. */
    ALTERNATE_PATH_RESPONSE(0x001A, "AlternatePathResponse", "APR", 148);

    private static final CmAttribute[] VALUES = values();

    private final int id;
    private final String displayName;
    private final String shortName;
    private final int privateDataLength;

    CmAttribute(final int id, final String displayName, final String shortName, final int privateDataLength)
    {
        this.id = id;
        this.displayName = displayName;
        this.shortName = shortName;
        this.privateDataLength = privateDataLength;
    }

    /**
     * @return the attribute ID.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return Wireshark's name, e.g. "ConnectRequest".
     */
    public String displayName()
    {
        return displayName;
    }

    /**
     * @return the IBA abbreviation, e.g. "REQ".
     */
    public String shortName()
    {
        return shortName;
    }

    /**
     * @return bytes of private data the message carries (0 for ClassPortInfo).
     */
    public int privateDataLength()
    {
        return privateDataLength;
    }

    /**
     * @param attributeId from a CM-class MAD header.
     * @return the attribute, or null when the CM class does not define it. Allocates nothing.
     */
    public static CmAttribute of(final int attributeId)
    {
        for (final CmAttribute attribute : VALUES)
        {
            if (attribute.id == attributeId)
            {
                return attribute;
            }
        }
        return null;
    }
}
