// RUN: not relax-opt %s --split-input-file -p tir-to-llvm 2>&1 | filecheck %s
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

// -----

// A data-dependent index that a select may drop: the numpy kernels check it only where
// the select keeps the load, the machine code would check it everywhere.
tir.prim_func @pick(%X: !tir.buffer<[4], f32>, %I: !tir.buffer<[3], i64>, %Y: !tir.buffer<[3], f32>) {
  tir.for i in [0, 3) {
    %k = tir.load %I[i] : i64
    tir.let t = %k : i64
    %zero = arith.constant 0 : i64
    %keep = arith.cmpi sge, %k, %zero : i64
    %x = tir.load %X[t] : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %keep, %x, %z : f32
    tir.store %Y[i], %y : f32
  }
}

// CHECK: tir-to-llvm-unsupported.mlir:19:1: error: 'tir.prim_func' op tir-to-llvm cannot lower this prim_func: a data-dependent index under a select
