// RUN: not relax-opt %s -p tir-to-llvm 2>&1 | filecheck %s
// What tir-to-llvm does not cover is an error naming the prim_func and the reason (the
// native kernel backend runs such a prim_func with the numpy kernel instead).

tir.prim_func @div(%A: !tir.buffer<[4], i32>, %B: !tir.buffer<[4], i32>) {
  tir.for i in [0, 4) {
    %a = tir.load %A[i] : i32
    %q = arith.floordivsi %a, %a : i32
    tir.store %B[i], %q : i32
  }
}

// CHECK: error: 'tir.prim_func' op tir-to-llvm cannot lower this prim_func: no llvm lowering of 'arith.floordivsi'
