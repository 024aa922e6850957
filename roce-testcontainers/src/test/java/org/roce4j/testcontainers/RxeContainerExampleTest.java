package org.roce4j.testcontainers;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.cli.RoceCommand;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's "Test your own RDMA code against rxe" example, run as written (README.md quotes the part between the
 * markers; {@link ReadmeExampleTest} checks that the two stay the same). Needs a Docker engine and the
 * roce4j/rxe-qemu image (docker/build-images.sh); without a Docker engine Testcontainers skips it.
 */
@Tag("interop")
@Tag("slow")
// README example start
@Testcontainers(disabledWithoutDocker = true)
class RxeContainerExampleTest
{
    @Container
    static RxeContainer rxe = new RxeContainer();

    @Test
    void roce4jPingsRxe() throws Exception
    {
        assertTrue(rxe.exec("ibv_devinfo -d rxe0").output().contains("PORT_ACTIVE"));
        rxe.guest().start("server", "ibv_rc_pingpong -g 1 -n 100 -s 4096");
        rxe.guest().awaitGuestListening(18515, Duration.ofSeconds(30));

        final int exit = RoceCommand.commandLine().execute("pingpong", "--link", rxe.tunnelLinkSpec(),
            "-g", "1", "-n", "100", "-s", "4096", "-p", Integer.toString(rxe.forwardedPort(18515)), "127.0.0.1");

        assertEquals(0, exit);
        assertEquals(0, rxe.guest().waitFor("server", Duration.ofMinutes(1)));
        assertTrue(rxe.guest().log("server").contains("100 iters"));
    }
}
// README example end
