package org.roce4j.conform;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.catalogue.Catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/conform.md stays true: its catalogue table has one row per scenario, with the scenario's side, section and
 * rule, and states how many scenarios there are.
 */
class ConformDocsTest
{
    @Test
    void theCatalogueTableNamesEveryScenarioWithItsRule() throws Exception
    {
        final String doc = Files.readString(Path.of("..", "docs", "conform.md"));
        int rows = 0;
        for (final String line : doc.lines().toList())
        {
            if (line.startsWith("| `") && line.matches("\\| `[a-z]+\\.[a-z0-9.-]+` \\| [a-z]+ \\| .*"))
            {
                rows++;
            }
        }
        for (final Scenario scenario : Catalogue.all())
        {
            final String row = "| `" + scenario.name() + "` | " + scenario.side().suiteName() + " | " +
                scenario.rule().section() + " | " + scenario.rule().paraphrase() + " |";
            assertTrue(doc.contains(row), "docs/conform.md lacks or misstates the row: " + row);
        }
        assertEquals(Catalogue.all().size(), rows, "rows of the catalogue table");
        assertTrue(doc.contains("**" + Catalogue.all().size() + " scenarios**"), "the scenario count");
    }
}
