package org.roce4j.examples;

import java.util.Arrays;

/**
 * {@code java -jar examples/target/examples.jar EXAMPLE [args]}: runs one example. The jar's manifest carries
 * {@code Add-Exports: java.base/jdk.internal.misc}, so no JVM option is needed.
 */
public final class Main
{
    private Main()
    {
    }

    /**
     * @param args the example's name (quick-start, pingpong, rdma-cm, kv-cache), then its arguments.
     * @throws Exception when the example fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final String name = args.length > 0 ? args[0] : "";
        final String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
        switch (name)
        {
            case "quick-start" -> QuickStart.main(rest);
            case "pingpong" -> RcPingPong.main(rest);
            case "rdma-cm" -> RdmaCmEcho.main(rest);
            case "kv-cache" -> KvCacheTransfer.main(rest);
            default ->
            {
                System.err.println("usage: java -jar examples.jar quick-start | pingpong [iterations] [size] | " +
                    "rdma-cm [both|server|client] [options] | kv-cache [both|decode|prefill] [options]");
                System.exit(2);
            }
        }
    }
}
