// RUN: relax-opt %s -p cse,dce | filecheck %s
// The upstream cse and dce passes are correct for relax: pure operators and pure
// packed calls merge and vanish when unused; impure packed calls are never merged or
// removed; match_shape binds symbolic variables (k, used later) and is never removed;
// values of a dataflow region are not reused outside it.

// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %0 = relax.dataflow -> !relax.tensor<[n], f32> {
// CHECK-NEXT:      %a = relax.exp %x
// CHECK-NEXT:      %p1 = relax.call_packed "pure.f"(%x) {pure}
// CHECK-NEXT:      %m = relax.match_shape %w [k]
// CHECK-NEXT:      %c = relax.add %a, %a
// CHECK-NEXT:      %d = relax.add %p1, %p1
// CHECK-NEXT:      %e = relax.add %c, %d
// CHECK-NEXT:      relax.output %e
// CHECK-NEXT:    }
// CHECK-NEXT:    %i1 = relax.call_packed "effect.f"(%0)
// CHECK-NEXT:    %i2 = relax.call_packed "effect.f"(%0)
// CHECK-NEXT:    %e2 = relax.exp %x
// CHECK-NEXT:    %s = relax.shape [k]
// CHECK-NEXT:    %t = relax.tuple %e2, %s
// CHECK-NEXT:    relax.return %t
relax.func @main(%x: !relax.tensor<[n], f32>, %w: !relax.tensor<ndim=1, f32>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<ndim=1>> {
  %0 = relax.dataflow -> !relax.tensor<[n], f32> {
    %a = relax.exp %x : (!relax.tensor<[n], f32>)
    %b = relax.exp %x : (!relax.tensor<[n], f32>)
    %p1 = relax.call_packed "pure.f"(%x) {pure} : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %p2 = relax.call_packed "pure.f"(%x) {pure} : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %unused = relax.negative %x : (!relax.tensor<[n], f32>)
    %m = relax.match_shape %w [k] : (!relax.tensor<ndim=1, f32>)
    %c = relax.add %a, %b : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
    %d = relax.add %p1, %p2 : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
    %e = relax.add %c, %d : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
    relax.output %e : !relax.tensor<[n], f32>
  }
  %i1 = relax.call_packed "effect.f"(%0) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %i2 = relax.call_packed "effect.f"(%0) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %e2 = relax.exp %x : (!relax.tensor<[n], f32>)
  %s = relax.shape [k]
  %t = relax.tuple %e2, %s : (!relax.tensor<[n], f32>, !relax.shape<[k]>)
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[k]>>
}
