package org.roce4j.interop;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.roce4j.testcontainers.RxePeerOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks an interop test class that needs a real rxe peer: one {@link RxePeer} is started before the class's first
 * test and stopped after its last (also when tests fail), and is injected into test or lifecycle method parameters
 * and into fields of type {@link RxePeer} (static fields before {@code @BeforeAll}, instance fields per instance).
 *
 * <p>Where neither QEMU nor a Docker engine exists each test is skipped with the reason, unless the environment
 * variable {@code ROCE4J_REQUIRE_TOOLS=1} is set (CI), which makes the class fail. Tagged {@code interop} and
 * {@code slow}: booting the peer takes 10 to 30 s on a busy two-core machine.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag("interop")
@Tag("slow")
@ExtendWith(RxePeerExtension.class)
public @interface RxePeerTest
{
    /**
     * @return IP MTU of the guest's RoCE NIC: 1500 gives rxe an active MTU of 1024, 9000 gives 4096.
     */
    int mtu() default 1500;

    /**
     * @return the guest's RoCE address with prefix length.
     */
    String guestIp() default "10.77.0.2/24";

    /**
     * @return the host side's (tunnel link's) address on that segment.
     */
    String linkIp() default "10.77.0.1";

    /**
     * @return guest TCP ports reachable from the host (the pingpong side channel by default).
     */
    int[] hostfwd() default {RxePeerOptions.PINGPONG_PORT};

    /**
     * @return true to let guest programs connect to servers on the host's 127.0.0.1 (through 10.0.2.2).
     */
    boolean hostAccess() default false;

    /**
     * @return true to put the guest's RoCE NIC on a tap device in a network namespace made for the class (see
     *     {@link TapNetwork}; needs root, else the tests are skipped) instead of a dgram tunnel: roce4j then reaches
     *     rxe through that namespace's kernel (udp link) or the tap itself (pcap link), and
     *     {@link RxePeer#tapNetwork()} says where. Give {@code hostfwd = {}}: programs in the namespace reach the
     *     guest at its own address.
     */
    boolean tap() default false;

    /**
     * @return seconds to wait for the peer's ready line.
     */
    int readyTimeoutSeconds() default 120;

    /**
     * @return how long a case of the class should take on a busy two-core CI machine, in seconds, unless the case
     *     says better with {@link RxePeer#expectCase}: its watchdog fires at {@value RxePeer#BUDGET_FACTOR} times that.
     */
    int expectedCaseSeconds() default 20;

    /**
     * @return what runs the guest: {@code AUTO} (QEMU here when it is installed, else a container), {@code QEMU}, or
     *     {@code CONTAINER} (the roce4j/rxe-qemu image through Testcontainers; needs a Docker engine and the image of
     *     docker/build-images.sh).
     */
    PeerTools.Backend backend() default PeerTools.Backend.AUTO;

    /**
     * @return the guest's Debian release: {@code bookworm} (Linux 6.1, rdma-core 44, perftest 4.5) or {@code trixie}
     *     (Linux 6.12, rdma-core 56, perftest 25.01); each has its own image, built on first use.
     */
    String suite() default "bookworm";
}
