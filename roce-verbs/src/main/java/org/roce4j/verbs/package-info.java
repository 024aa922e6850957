/**
 * A Verbs API shaped like libibverbs over the roce4j engine: {@link org.roce4j.verbs.RdmaDevice} (ibv_open_device),
 * {@link org.roce4j.verbs.ProtectionDomain} (ibv_alloc_pd), {@link org.roce4j.verbs.MemoryRegion} (ibv_reg_mr),
 * {@link org.roce4j.verbs.CompletionQueue} (ibv_create_cq / ibv_poll_cq), {@link org.roce4j.verbs.QueuePair}
 * (ibv_create_qp / ibv_modify_qp / ibv_post_send / ibv_post_recv), {@link org.roce4j.verbs.AddressHandle}
 * (ibv_create_ah) and {@link org.roce4j.verbs.SharedReceiveQueue} (ibv_create_srq).
 *
 * <p>Names follow libibverbs with Java spelling; the vocabulary types (QP states and types, attribute masks,
 * access flags, work completions, opcodes, statuses) come from {@code org.roce4j.ib}. Bad arguments throw
 * at once with a message naming the problem; nothing is silently clamped or ignored.
 *
 * <p>This package reaches the engine only through the provider interfaces of
 * {@code org.roce4j.transport.provider}, as libibverbs reaches a provider through its verbs_context_ops.
 */
package org.roce4j.verbs;
