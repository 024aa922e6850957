/**
 * The verbs vocabulary: the names the InfiniBand Architecture and libibverbs give to what an application, the
 * Verbs API, the connection manager and the engine all speak of. QP types ({@link org.roce4j.ib.QpType}), states
 * ({@link org.roce4j.ib.QpState}), attributes and their mask ({@link org.roce4j.ib.QpAttributes},
 * {@link org.roce4j.ib.QpAttrMask}, {@link org.roce4j.ib.QpCapabilities}), work request and completion opcodes
 * ({@link org.roce4j.ib.WrOpcode}, {@link org.roce4j.ib.WcOpcode}), completions and their status
 * ({@link org.roce4j.ib.WorkCompletion}, {@link org.roce4j.ib.WcStatus}), access and send flags
 * ({@link org.roce4j.ib.AccessFlags}, {@link org.roce4j.ib.SendFlags}), path MTUs ({@link org.roce4j.ib.Mtu}),
 * address handle attributes ({@link org.roce4j.ib.AhAttributes}) and asynchronous events
 * ({@link org.roce4j.ib.AsyncEvent}).
 *
 * <p>These are plain values, as struct ibv_qp_attr or struct ibv_wc are in libibverbs' verbs.h: they hold no engine
 * state, and every layer uses the same ones. The objects that act on them are in {@code org.roce4j.verbs}.
 */
package org.roce4j.ib;
