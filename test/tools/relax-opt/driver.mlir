// The relax-opt driver: pipelines, output, stdin, instrumentation, and errors.

// RUN: relax-opt %s -p relax-normalize,cse | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: relax.func @main
// PIPE-NEXT: %0 = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>

// RUN: relax-opt %s -o %t && filecheck %s --check-prefix=PIPE < %t
// RUN: cat %s | relax-opt - 2>&1 | filecheck %s --check-prefix=STDIN
// RUN: cat %s | relax-opt | filecheck %s --check-prefix=STDIN
// STDIN: relax.func @main

// RUN: relax-opt %s -p relax-normalize --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// AFTER: // -----// IR Dump After relax-normalize //----- //
// AFTER-NEXT: builtin.module {

// RUN: relax-opt %s -p relax-normalize,cse --print-ir-before=cse 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// BEFORE-NOT: Before relax-normalize
// BEFORE: // -----// IR Dump Before cse //----- //

// RUN: relax-opt %s -p relax-normalize,cse --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIME
// TIME: ... Execution time report ...
// TIME: Total Execution Time: {{[0-9.]+}} seconds
// TIME: ----Wall Time----  ----Name----
// TIME: (parse)
// TIME: relax-normalize
// TIME: cse
// TIME: Total

// RUN: not relax-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=BADPASS
// BADPASS: relax-opt: error: unknown pass 'no-such-pass' (available: {{.*}}relax-normalize
// RUN: not relax-opt %s -p 'relax-normalize{bogus=1}' 2>&1 | filecheck %s --check-prefix=BADOPT
// BADOPT: relax-opt: error: bad options for pass 'relax-normalize'
// RUN: not relax-opt %s -p 'relax-fold-constant{max_elements=-5}' 2>&1 | filecheck %s --check-prefix=NEGOPT
// NEGOPT: relax-opt: error: bad options for pass 'relax-fold-constant': max_elements must be >= 0, got -5
// RUN: not relax-opt %t.missing 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: relax-opt: error: cannot open input file '{{.*}}missing': No such file or directory
// RUN: echo "relax.func @f(" | not relax-opt 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: <stdin>:2:1: error:
// SYNTAX-NOT: Traceback
// RUN: not relax-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: relax-opt: error: argument -t/--target: invalid choice: 'llvm' (choose from 'mlir') (see --help)
// TARGET-NOT: usage
// RUN: not relax-opt %s -t 'mlir{' 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC: relax-opt: error: argument -t/--target: invalid choice: 'mlir{' (choose from 'mlir'); did you mean 'mlir'? (see --help)
// RUN: not relax-opt %s --bogus 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: relax-opt: error: unrecognized arguments: --bogus (see --help)
// FLAG-NOT: usage
// RUN: echo "" | relax-opt | filecheck %s --check-prefix=EMPTY
// EMPTY: builtin.module {
// EMPTY-NEXT: }

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %0 = relax.exp %x : (!relax.tensor<[n], f32>)
  %1 = relax.exp %x : (!relax.tensor<[n], f32>)
  relax.return %0 : !relax.tensor<[n], f32>
}
