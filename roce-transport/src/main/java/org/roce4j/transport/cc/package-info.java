/**
 * Congestion control as ConnectX NICs do it: ECN marking, CNPs and DCQCN. {@link org.roce4j.transport.cc.CongestionControl}
 * configures a device (through {@code EngineConfig.congestionControl}); {@link org.roce4j.transport.cc.DcqcnReactionPoint}
 * is the per-QP rate algorithm; {@link org.roce4j.transport.cc.QpRate} is what a QP's rate query returns.
 */
package org.roce4j.transport.cc;
