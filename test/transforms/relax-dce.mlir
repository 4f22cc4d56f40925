// RUN: relax-opt %s -p relax-dce | filecheck %s
// relax-dce removes the relax values nothing uses (here the shape a fused reshape no
// longer takes, and a pure operator) and leaves kernels alone: the dead load in
// @kernel stays, as does the match_shape (it binds k) and the impure packed call.

// CHECK-LABEL: tir.prim_func @kernel
// CHECK-NEXT:    tir.for i in [0, n) {
// CHECK-NEXT:      %{{.*}} = tir.load %a[i] : f32
// CHECK-NEXT:      %[[V:.*]] = tir.load %a[i] : f32
// CHECK-NEXT:      tir.store %b[i], %[[V]] : f32
tir.prim_func @kernel(%a: !tir.buffer<[n], f32>, %b: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %dead = tir.load %a[i] : f32
    %v = tir.load %a[i] : f32
    tir.store %b[i], %v : f32
  }
}

// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %m = relax.match_shape %w [k]
// CHECK-NEXT:    %i = relax.call_packed "effect.f"(%x)
// CHECK-NEXT:    %r = relax.call_tir @kernel(%x)
// CHECK-NEXT:    relax.return %r
relax.func @main(%x: !relax.tensor<[n], f32>, %w: !relax.tensor<ndim=1, f32>) -> !relax.tensor<[n], f32> {
  %shape = relax.shape [n, 1] : !relax.shape<[n, 1]>
  %unused = relax.negative %x : (!relax.tensor<[n], f32>)
  %m = relax.match_shape %w [k] : (!relax.tensor<ndim=1, f32>)
  %i = relax.call_packed "effect.f"(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %r = relax.call_tir @kernel(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %r : !relax.tensor<[n], f32>
}
