package org.roce4j.interop;

import org.junit.jupiter.api.TestInfo;

/**
 * The one name of an interop case: its recording ({@code target/pcaps/NAME.pcap}), its log lines and its wedge
 * evidence all carry it.
 */
final class CaseName
{
    private CaseName()
    {
    }

    /**
     * @param test the running case.
     * @return {@code <TestClass>-<method>}, the class being the one that runs (a suite's subclass such as
     *     {@code TrixieRpingWithRxeTest}, not the class that declares the method).
     */
    static String of(final TestInfo test)
    {
        return test.getTestClass().orElseThrow().getSimpleName() + "-" + test.getTestMethod().orElseThrow().getName();
    }
}
