// relax-opt takes mlir-opt's spellings beside its own: --pass-pipeline with nested
// builtin.module(...) pipelines (anchors flattened: every xrelax pass visits the whole
// module), the --mlir-* instrumentation flags, and one dash or two; an unknown flag or
// pass suggests the nearest one.

// RUN: relax-opt %s --pass-pipeline='builtin.module(relax-normalize,relax.func(cse))' | filecheck %s --check-prefix=PIPE
// RUN: relax-opt %s -pass-pipeline='builtin.module(func.func(relax-normalize),any(cse))' | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: relax.func @main
// PIPE-NEXT: %0 = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// PIPE-NEXT: relax.return %0

// RUN: relax-opt %s -p relax-normalize --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: relax-opt %s -p relax-normalize -mlir-print-ir-after=relax-normalize 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// AFTER: // -----// IR Dump After relax-normalize //----- //
// RUN: relax-opt %s -p relax-normalize -mlir-print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// BEFORE: // -----// IR Dump Before relax-normalize //----- //

// RUN: relax-opt %s -p relax-normalize --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIME
// TIME: ... Execution time report ...
// TIME: relax-normalize

// RUN: relax-opt %s -mlir-print-op-generic -split-input-file -mlir-disable-threading | filecheck %s --check-prefix=GENERIC
// GENERIC: "relax.func"()

// RUN: not relax-opt %s --pass-pipeline='builtin.module(relax-normalise)' 2>&1 | filecheck %s --check-prefix=NEAR
// NEAR: relax-opt: error: unknown pass 'relax-normalise'; did you mean 'relax-normalize'? (available:
// RUN: not relax-opt %s --pass-pipeline='scf.for(cse)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// ANCHOR: relax-opt: error: malformed pass pipeline: 'scf.for(' nests passes under an operation; expected one of builtin.module, relax.func, func.func, tir.prim_func, vm.func, any
// RUN: not relax-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | filecheck %s --check-prefix=OPEN
// OPEN: relax-opt: error: malformed pass pipeline: unbalanced '('
// RUN: not relax-opt %s --mlir-print-ir-aftr-all 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: relax-opt: error: unrecognized arguments: --mlir-print-ir-aftr-all; did you mean --mlir-print-ir-after-all? (see --help)

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %0 = relax.exp %x : (!relax.tensor<[n], f32>)
  %1 = relax.exp %x : (!relax.tensor<[n], f32>)
  relax.return %0 : !relax.tensor<[n], f32>
}
