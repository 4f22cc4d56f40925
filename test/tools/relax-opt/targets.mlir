// relax-opt offers only the targets relax IR can be emitted to (mlir); xDSL's other
// targets (which crash or print nothing for relax IR) are refused in one line, with
// the nearest name when there is one.

// RUN: relax-opt --help | filecheck %s --check-prefix=HELP
// HELP: -t TARGET, --target TARGET
// HELP: Available targets are: mlir{{$}}

// RUN: relax-opt %s -t mlir --split-input-file | filecheck %s --check-prefix=MLIR
// MLIR: relax.func @first
// MLIR: // -----
// MLIR: relax.func @second

// RUN: not relax-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=LLVM
// LLVM: relax-opt: error: argument -t/--target: invalid choice: 'llvm' (choose from 'mlir') (see --help)
// RUN: not relax-opt %s -t x86-asm 2>&1 | filecheck %s --check-prefix=X86
// X86: relax-opt: error: argument -t/--target: invalid choice: 'x86-asm' (choose from 'mlir') (see --help)
// RUN: not relax-opt %s -t wat 2>&1 | filecheck %s --check-prefix=WAT
// WAT: relax-opt: error: argument -t/--target: invalid choice: 'wat' (choose from 'mlir') (see --help)
// RUN: not relax-opt %s -t riscv-asm 2>&1 | filecheck %s --check-prefix=RISCV
// RISCV: relax-opt: error: argument -t/--target: invalid choice: 'riscv-asm' (choose from 'mlir') (see --help)
// RUN: not relax-opt %s -t mlr 2>&1 | filecheck %s --check-prefix=NEAR
// NEAR: relax-opt: error: argument -t/--target: invalid choice: 'mlr' (choose from 'mlir'); did you mean 'mlir'? (see --help)
// NEAR-NOT: Traceback

relax.func @first(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @second(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  relax.return %x : !relax.tensor<[n], f32>
}
