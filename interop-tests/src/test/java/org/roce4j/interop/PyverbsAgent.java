package org.roce4j.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The guest side of {@link PyverbsWithRxeTest}: {@code docker/rxe-vm/pyverbs/rxe_agent.py}, a python3-pyverbs program
 * in the trixie guest that owns one RC QP and one MR on rxe0 and does what each JSON command line says (post a FLUSH,
 * bind a memory window, read its memory...). Every answer is one JSON line; a failed command fails the test with the
 * agent's error and its log.
 */
final class PyverbsAgent implements AutoCloseable
{
    /** The agent's TCP port in the guest: the forwarded one every {@link RxePeerTest} has. */
    static final int PORT = PingpongInterop.PINGPONG_PORT;
    /** Name of the agent's background command in the guest. */
    private static final String NAME = "pyverbs";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RxePeer peer;
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    /**
     * Start the agent in the guest and connect to it.
     *
     * @param peer the trixie guest.
     * @param timeout for the agent to listen (Python starts slowly under TCG).
     * @throws IOException when it does not come up.
     */
    PyverbsAgent(final RxePeer peer, final Duration timeout) throws IOException
    {
        this.peer = peer;
        peer.kill(NAME);
        peer.start(NAME, "python3 /opt/roce4j/rxe_agent.py " + PORT + " 2>&1");
        socket = peer.tcpConnect(PORT, timeout);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
    }

    /**
     * Send one command and wait for its answer.
     *
     * @param op        the command.
     * @param arguments name, value pairs.
     * @return the answer, which said {@code "ok": true}.
     * @throws IOException when the connection fails.
     */
    JsonNode call(final String op, final Object... arguments) throws IOException
    {
        final Map<String, Object> command = new LinkedHashMap<>();
        command.put("op", op);
        for (int i = 0; i < arguments.length; i += 2)
        {
            command.put((String)arguments[i], arguments[i + 1]);
        }
        out.write((JSON.writeValueAsString(command) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        final String line = in.readLine();
        if (null == line)
        {
            throw new AssertionError("rxe_agent closed the connection after " + command + "\n" + log());
        }
        final JsonNode answer = JSON.readTree(line);
        if (!answer.path("ok").asBoolean())
        {
            throw new AssertionError("rxe_agent " + command + ": " + answer.path("error").asText() + "\n" + log());
        }
        return answer;
    }

    /**
     * @return the agent's output so far (every command and answer).
     */
    String log()
    {
        try
        {
            return peer.log(NAME);
        }
        catch (final IOException ex)
        {
            return "(agent log unreadable: " + ex + ")";
        }
    }

    /**
     * Tell the agent to quit and wait for it.
     */
    public void close() throws IOException
    {
        try
        {
            call("quit");
            peer.waitFor(NAME, Duration.ofSeconds(20));
        }
        finally
        {
            socket.close();
            peer.kill(NAME);
        }
    }
}
