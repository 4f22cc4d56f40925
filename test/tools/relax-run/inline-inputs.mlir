// relax-run takes inputs on the command line as IREE's tools do (--input), times calls
// with --benchmark, and prints results in numpy's summarised form (--print-full: every
// element, each with the digits that round-trip).

// RUN: relax-run %s --input=i64=3 --input=2x3xf32=1,2,3,4,5,6 --print | filecheck %s --check-prefix=POS
// RUN: relax-run %s --input=x=2x3xf32=1,2,3,4,5,6 --input=i=i64=3 --print | filecheck %s --check-prefix=POS
// POS:      out0: int64[3] = [0, 1, 2]
// POS-NEXT: out1: float32[2, 3] = {{\[\[}} 2.,  4.,  6.],
// POS-NEXT:                        [ 8., 10., 12.]]

// RUN: relax-run %s --input=i64=0 --input=x=@%S/Inputs/ramp.npy --print | filecheck %s --check-prefix=SUMMARY
// SUMMARY:      out1: float32[1000, 3] = {{\[\[}}0.0000000e+00, 6.6666669e-01, 1.3333334e+00],
// SUMMARY-NEXT:                           [2.0000000e+00, 2.6666667e+00, 3.3333333e+00],
// SUMMARY-NEXT:                           [4.0000000e+00, 4.6666665e+00, 5.3333335e+00],
// SUMMARY-NEXT:                           ...,
// SUMMARY-NEXT:                           [1.9940000e+03, 1.9946666e+03, 1.9953334e+03],
// RUN: relax-run %s --input=i64=0 --input=x=@%S/Inputs/ramp.npy --print-full | filecheck %s --check-prefix=FULL
// FULL:      out1: float32[1000, 3] = {{\[\[}}0.00000000e+00, 6.66666687e-01, 1.33333337e+00],
// FULL-NEXT:                           [2.00000000e+00, 2.66666675e+00, 3.33333325e+00],
// FULL-NOT: ...
// FULL:                                [1.99800000e+03, 1.99866663e+03, 1.99933337e+03]]

// RUN: relax-run %s --input=i64=3 --input=2x3xf32=1 --benchmark 5 | filecheck %s --check-prefix=BENCH
// BENCH: main: 5 calls, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms, max {{[0-9.]+}} ms

// RUN: not relax-run %s --input=i64=3 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: relax-run: error: main: missing input 'x' (parameters: i, x)
// RUN: not relax-run %s --input=i64=3 --input=2x3xf32=1 --input=f32=1 2>&1 | filecheck %s --check-prefix=EXTRA
// EXTRA: relax-run: error: main: 3 unnamed --input values for 2 parameters not given otherwise (i, x)
// RUN: not relax-run %s --input=2x3xf32=1,2 2>&1 | filecheck %s --check-prefix=COUNT
// COUNT: relax-run: error: --input '2x3xf32=1,2': 2 values for 6 elements
// RUN: not relax-run %s --input=2xi8=300 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not relax-run %s --input=x=@%t.missing.npy 2>&1 | filecheck %s --check-prefix=FILE
// RANGE: relax-run: error: --input '2xi8=300': 300 is outside int8 [-128, 127]
// FILE: relax-run: error: --input cannot read '{{.*}}missing.npy': No such file or directory
// RUN: not relax-run %s --input=x=1,2 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: relax-run: error: --input 'x=1,2': expected DIMSxTYPE=VALUES (2x3xf32=1,2,3,4,5,6), TYPE=VALUE, @FILE.npy, or NAME= before one of them
// RUN: not relax-run %s --input=i64=3 --input=2x3xf32=1 --benchmark 0 2>&1 | filecheck %s --check-prefix=BENCHARG
// BENCHARG: relax-run: error: argument --benchmark: expected an integer in [1, 1000000], got 0 (see --help)

relax.func @main(%i: !relax.prim<i64, k>, %x: !relax.tensor<[n, 3], f32>) -> !relax.tuple<!relax.tensor<[k], i64>, !relax.tensor<[n, 3], f32>> {
  %zero = relax.prim_value 0 : !relax.prim<i64, 0>
  %one = relax.prim_value 1 : !relax.prim<i64, 1>
  %r = relax.arange %zero, %i, %one : (!relax.prim<i64, 0>, !relax.prim<i64, k>, !relax.prim<i64, 1>) -> !relax.tensor<[k], i64>
  %y = relax.add %x, %x : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>)
  %t = relax.tuple %r, %y : (!relax.tensor<[k], i64>, !relax.tensor<[n, 3], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[k], i64>, !relax.tensor<[n, 3], f32>>
}
