package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ModuleExportsTest {
    @Test
    void moduleExportsOnlyTheApiPackageAndRequiresNothingButJavaBase() throws Exception {
        ModuleDescriptor descriptor;
        Path classes = Path.of(HintStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }
        assertEquals("dev.hintmap", descriptor.name());
        assertEquals(Set.of("dev.hintmap"),
                descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertEquals(Set.of("java.base"),
                descriptor.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
    }
}
