package org.roce4j.testcontainers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * QEMU's machine protocol (QMP) on a Unix socket ({@code run-vm.sh --qmp unix:...}): the view of the guest
 * from outside it, which still answers when the guest's own consoles do not. Used for diagnostics only: the virtio
 * queue states of a wedged NIC ({@code info virtio-queue-status}), the backends ({@code info network}).
 *
 * <p>Each exchange is one JSON object per line (QEMU's QMP specification, docs/interop/qmp-spec); events that arrive
 * between a command and its answer are skipped. Jackson parses them: QMP's strings carry escapes. Every exchange has
 * a deadline: a QEMU whose main loop hangs closes nothing, so the socket is closed when the deadline passes.
 */
final class QmpClient implements AutoCloseable
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private final GuestChannel socket;
    private final BufferedReader in;
    private final OutputStream out;
    private final Duration timeout;

    private QmpClient(final GuestChannel socket, final Duration timeout)
    {
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.in(), StandardCharsets.UTF_8));
        this.out = socket.out();
        this.timeout = timeout;
    }

    /**
     * Take over a connected socket and leave capabilities negotiation mode.
     *
     * @param socket  connected to QMP.
     * @param timeout for every answer.
     * @return a client in command mode.
     * @throws IOException when QEMU does not answer as QMP does; the socket is closed then.
     */
    static QmpClient connect(final GuestChannel socket, final Duration timeout) throws IOException
    {
        final QmpClient client = new QmpClient(socket, timeout);
        try
        {
            final JsonNode greeting = client.withDeadline(() -> JSON.readTree(client.in.readLine()));
            if (null == greeting || !greeting.has("QMP"))
            {
                throw new IOException("not a QMP greeting: " + greeting);
            }
            client.execute("qmp_capabilities", null);
            return client;
        }
        catch (final IOException | RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * Run a human monitor command (the text of QEMU's HMP, e.g. {@code info network}).
     *
     * @param commandLine the command.
     * @return its text output.
     * @throws IOException when QEMU answers with an error or not at all.
     */
    String hmp(final String commandLine) throws IOException
    {
        final ObjectNode arguments = JSON.createObjectNode().put("command-line", commandLine);
        return execute("human-monitor-command", arguments).asText();
    }

    private JsonNode execute(final String command, final ObjectNode arguments) throws IOException
    {
        return withDeadline(() -> exchange(command, arguments));
    }

    private JsonNode exchange(final String command, final ObjectNode arguments) throws IOException
    {
        final ObjectNode request = JSON.createObjectNode().put("execute", command);
        if (null != arguments)
        {
            request.set("arguments", arguments);
        }
        out.write((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        while (true)
        {
            final String line = in.readLine();
            if (null == line)
            {
                throw new IOException("QMP closed the connection during '" + command + "'");
            }
            final JsonNode answer = JSON.readTree(line);
            if (answer.has("return"))
            {
                return answer.get("return");
            }
            if (answer.has("error"))
            {
                throw new IOException("QMP '" + command + "' failed: " + answer.get("error"));
            }
            // an asynchronous event ({"event": ...}): not the answer
        }
    }

    public void close()
    {
        socket.close();
    }

    private <T> T withDeadline(final Callable<T> exchange) throws IOException
    {
        final FutureTask<T> task = new FutureTask<>(exchange);
        final Thread thread = new Thread(task, "qmp-exchange");
        thread.setDaemon(true);
        thread.start();
        try
        {
            return task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            socket.close();   // unblocks the reader
            throw new IOException("QMP did not answer within " + timeout, ex);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof IOException)
            {
                throw (IOException)ex.getCause();
            }
            throw new IOException("QMP exchange failed", ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            socket.close();
            throw new IOException("interrupted while waiting for QMP", ex);
        }
    }
}
