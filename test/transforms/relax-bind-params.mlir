// relax-bind-params: parameters become constants and leave the signature; folding
// then precomputes what depends only on them (the scale is folded into the weights).

// RUN: relax-opt %s -p 'relax-bind-params{params="%S/Inputs/bind_params.npz"}' | filecheck %s
// CHECK-LABEL: relax.func @main(%x: !relax.tensor<[n, 2], f32>) -> !relax.tensor<[n, 2], f32>
// CHECK-NEXT:    %s = relax.const dense<[1.000000e+01, 1.000000e+02]> : !relax.tensor<[2], f32>
// CHECK-NEXT:    %w = relax.const dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : !relax.tensor<[2, 2], f32>
// CHECK-NEXT:    %0 = relax.matmul %x, %w

// RUN: relax-opt %s -p 'relax-bind-params{params="%S/Inputs/bind_params.npz"},relax-fold-constant,dce' | filecheck %s --check-prefix=FOLD
// FOLD-LABEL: relax.func @main(%x: !relax.tensor<[n, 2], f32>)
// FOLD-NEXT:    %0 = relax.const dense<{{\[}}[1.000000e+01, 2.000000e+02], [3.000000e+01, 4.000000e+02]]> : !relax.tensor<[2, 2], f32>
// FOLD-NEXT:    %1 = relax.matmul %x, %0
// FOLD-NEXT:    relax.return %1

// RUN: not relax-opt %s -p 'relax-bind-params{params="%S/Inputs/bind_params_bad.npz"}' 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: relax-bind-params.mlir:{{[0-9]+}}:1: error: 'relax.func' op relax-bind-params: parameter 'w' is !relax.tensor<[2, 2], f32>, the value given is float32[3, 2]

// RUN: not relax-opt %s -p 'relax-bind-params{params="%S/Inputs/bind_params.npz" func="f"}' 2>&1 | filecheck %s --check-prefix=FUNC
// FUNC: relax-bind-params: no relax function 'f' to bind

// RUN: not relax-opt %s -p 'relax-bind-params{params="%t.missing.npz"}' 2>&1 | filecheck %s --check-prefix=FILE
// FILE: relax-bind-params: cannot read '{{.*}}missing.npz': No such file or directory

// RUN: not relax-opt %s -p relax-bind-params 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: bad options for pass 'relax-bind-params': relax-bind-params needs params="file.npz"

relax.func @main(%x: !relax.tensor<[n, 2], f32>, %w: !relax.tensor<[2, 2], f32>, %s: !relax.tensor<[2], f32>) -> !relax.tensor<[n, 2], f32> {
  %0 = relax.matmul %x, %w : (!relax.tensor<[n, 2], f32>, !relax.tensor<[2, 2], f32>)
  %1 = relax.multiply %0, %s : (!relax.tensor<[n, 2], f32>, !relax.tensor<[2], f32>)
  relax.return %1 : !relax.tensor<[n, 2], f32>
}
