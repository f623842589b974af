package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.StoredName;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * How a kernel name is shortened to fit a table's column ({@link NameFitter}, {@link CxxName}): the
 * short C++ form at each width on real kernel names, the stored style, the tag of a name stored
 * shortened, and, for any text and width, a result that fits.
 */
class NameFitterTest {
    private static String shortForm(String name, int width) {
        return NameFitter.fit(name, "", width, NameFitter.Style.SHORT, "…");
    }

    @Test
    void aCppKernelNameLosesItsReturnTypeThenItsParametersThenTheMiddleOfItsTemplateArguments() {
        String cutlass = KernelNames.CUTLASS;
        assertSame(cutlass, shortForm(cutlass, cutlass.length()), "whole where it fits");
        assertEquals("cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                shortForm(cutlass, cutlass.length() - 1), "first the return type");
        assertEquals("cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(…)",
                shortForm(cutlass, 90), "then the parameters");
        assertEquals("cutlass::Kernel2<cutlass_80_tensorop…x128_32x3_nn_align8>(…)", shortForm(cutlass, 60),
                "then the middle of the template arguments, their start and end kept");
        assertEquals("…::Kernel2<cutlass…_align8>(…)", shortForm(cutlass, 30), "then the qualifier");
        assertEquals("…::Ker…l2<…>(…)", shortForm(cutlass, 15), "the base name last");
    }

    @Test
    void pytorchsSoftmaxKeepsItsBaseNameAndCutsTheAnonymousNamespaceFirst() {
        String softmax = KernelNames.SOFTMAX;
        assertEquals("at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, flo…ftMaxForwardEpilogue>(…)",
                shortForm(softmax, 100));
        assertEquals("at::…::cunn_SoftMaxForward<4, float, floa…orwardEpilogue>(…)", shortForm(softmax, 60),
                "the qualifier's first component stays while the template arguments keep a readable part");
        assertEquals("…::cunn_SoftMaxForward<4…e>(…)", shortForm(softmax, 30));
        assertEquals("…::cunn_…rward<…>(…)", shortForm(softmax, 20));
    }

    @Test
    void namesThatAreNotCppFunctionsKeepTheirStartAndEnd() {
        assertEquals("ampere_sgemm_128x64_nn", shortForm(KernelNames.CUBLAS, 22));
        assertEquals("ampere_sge…128x64_nn", shortForm(KernelNames.CUBLAS, 20));
        assertEquals("trito…add_0", shortForm(KernelNames.TRITON, 11));
        assertEquals("ampere_s...8x64_nn", NameFitter.fit(KernelNames.CUBLAS, "", 18, NameFitter.Style.SHORT, "..."),
                "the ASCII mark where the output cannot print …");
    }

    @Test
    void theStoredStyleCutsOnlyTheMiddle() {
        String fit = NameFitter.fit(KernelNames.CUTLASS, "", 40, NameFitter.Style.STORED, "…");
        assertEquals("void cutlass::Kernel…_nn_align8>(Params)", fit);
    }

    @Test
    void theTagOfANameStoredShortenedIsKeptWholeWhateverElseIsCut() {
        for (String name : KernelNames.ALL) {
            String stored = StoredName.of(name, 128);
            String tag = StoredName.tagOf(stored, 128);
            if (tag.isEmpty()) {
                continue; // stored whole
            }
            for (int width = tag.length() + NameFitter.MIN_BESIDE_TAG; width <= stored.length(); width++) {
                for (NameFitter.Style style : NameFitter.Style.values()) {
                    String fit = NameFitter.fit(stored, tag, width, style, "…");
                    assertTrue(fit.endsWith(tag) && Table.columns(fit) <= width, width + " " + style + ": " + fit);
                }
            }
        }
        String stored = StoredName.of(KernelNames.LAYER_NORM, 256);
        String tag = StoredName.tagOf(stored, 256);
        String fit = NameFitter.fit(stored, tag, 100, NameFitter.Style.SHORT, "…");
        String kept = stored.substring(0, stored.length() - tag.length());
        assertTrue(fit.startsWith("at::…::layer_norm_grad_input_kernel_vectorized<float, ")
                && fit.endsWith(kept.substring(kept.length() - 8) + tag) && Table.columns(fit) == 100,
                "a name cut inside its template arguments: the start and end of what the file kept, then the tag: " + fit);
    }

    @Test
    void cxxNameReadsTheQualifierTheTemplateArgumentsAndTheParameters() {
        CxxName softmax = CxxName.parse(KernelNames.SOFTMAX).orElseThrow();
        assertEquals("void ", softmax.returnType());
        assertEquals("at::native::(anonymous namespace)::", softmax.qualifier());
        assertEquals(3, softmax.qualifierDepth());
        assertEquals("cunn_SoftMaxForward", softmax.base());
        assertEquals("4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue",
                softmax.templateArgs());
        assertEquals("float*, float const*, int", softmax.params());
        CxxName cut = CxxName.parse("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float").orElseThrow();
        assertEquals("512, 1, at::native::ReduceOp<float", cut.templateArgs());
        assertTrue(!cut.templateClosed() && cut.params() == null, "a name cut short: the last part is open");
        assertTrue(CxxName.parse(KernelNames.TRITON).isEmpty(), "a C name");
        assertTrue(CxxName.parse("operator>(int)").isEmpty(), "brackets that do not balance");
        assertNull(CxxName.parse("void k(float*)").orElseThrow().templateArgs());
    }

    @Property(tries = 3000)
    void anyNameFitsAnyWidth(@ForAll @StringLength(min = 1, max = 300) String raw,
            @ForAll @IntRange(min = 1, max = 200) int width, @ForAll NameFitter.Style style, @ForAll boolean ascii) {
        String name = Table.printable(raw);
        String fit = NameFitter.fit(name, "", width, style, ascii ? "..." : "…");
        assertTrue(Table.columns(fit) <= width, width + ": " + fit);
        if (Table.columns(name) <= width) {
            assertEquals(name, fit, "a name that fits is whole");
        }
    }

    @Property(tries = 1000)
    void anyCppLookingNameFitsAnyWidth(@ForAll @IntRange(min = 0, max = 5) int which,
            @ForAll @IntRange(min = 1, max = 200) int cut, @ForAll @IntRange(min = 1, max = 120) int width) {
        String name = KernelNames.ALL.get(which);
        String prefix = name.substring(0, Math.min(name.length(), cut)); // every way a stored prefix can end
        String fit = shortForm(prefix, width);
        assertTrue(Table.columns(fit) <= width, width + ": " + fit);
    }
}
