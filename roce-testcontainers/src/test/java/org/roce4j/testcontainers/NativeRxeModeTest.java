package org.roce4j.testcontainers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.output.FrameConsumerResultCallback;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.output.ToStringConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The image's other modes (docker/rxe-qemu/entrypoint.sh): {@code native} uses the host kernel's rdma_rxe directly on
 * the container's NIC (docker/rxe-peer's entrypoint); {@code auto} does so where the host kernel has rdma_rxe loaded
 * and runs the QEMU guest elsewhere. On a host with rdma_rxe, native mode must print the ready line; on one without
 * (this project's machines), it must say so in the ready line's failure form and exit 1, and auto must start QEMU.
 */
@Tag("interop")
@Tag("slow")
class NativeRxeModeTest
{
    private static final boolean HOST_HAS_RXE = Files.isDirectory(Path.of("/sys/module/rdma_rxe"));

    /** Exit code and output of a container run to its end. */
    private record Run(int exit, String output)
    {
    }

    @Test
    void nativeModeUsesTheHostsRxeOrSaysItHasNone() throws Exception
    {
        final Run run = run("native", "true");
        if (HOST_HAS_RXE)
        {
            assertTrue(run.output().contains(RxeReady.READY + " "), run.output());
            assertEquals(0, run.exit(), run.output());
        }
        else
        {
            assertTrue(run.output().contains(RxeReady.FAILED + " step=modprobe rdma_rxe is not loaded"),
                run.output());
            assertEquals(1, run.exit(), run.output());
        }
    }

    @Test
    void autoModeRunsTheQemuGuestWhereTheHostHasNoRxe() throws Exception
    {
        assumeTrue(!HOST_HAS_RXE, "this host's kernel has rdma_rxe: auto mode goes native (the other test)");
        final Run run = run("auto", "--dgram", "47001:47000", "--dry-run");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("qemu-system-x86_64 -accel tcg"), run.output());
    }

    private static Run run(final String... command) throws InterruptedException
    {
        assumeTrue(DockerClientFactory.instance().isDockerAvailable(), "needs a Docker engine");
        final DockerClient docker = DockerClientFactory.instance().client();
        final String image = System.getProperty("roce4j.rxe.image", RxeContainer.DEFAULT_IMAGE);
        final String id = docker.createContainerCmd(image).withCmd(command)
            .withHostConfig(HostConfig.newHostConfig().withNetworkMode("host").withCapAdd(Capability.NET_ADMIN))
            .exec().getId();
        try
        {
            docker.startContainerCmd(id).exec();
            final int exit = docker.waitContainerCmd(id).start().awaitStatusCode(120, TimeUnit.SECONDS);
            final ToStringConsumer logs = new ToStringConsumer();
            final FrameConsumerResultCallback callback = new FrameConsumerResultCallback();
            callback.addConsumer(OutputFrame.OutputType.STDOUT, logs);
            callback.addConsumer(OutputFrame.OutputType.STDERR, logs);
            docker.logContainerCmd(id).withStdOut(true).withStdErr(true).exec(callback).awaitCompletion(30,
                TimeUnit.SECONDS);
            return new Run(exit, logs.toUtf8String());
        }
        finally
        {
            docker.removeContainerCmd(id).withForce(true).exec();
        }
    }
}
