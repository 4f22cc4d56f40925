// RUN: relax-opt %s -p relax-to-non-dataflow | filecheck %s

// The bindings move out in order; uses of the region's results use the output values.
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %lv0 = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:    %lv1 = relax.negative %lv0 : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:    %r = relax.add %lv1, %lv0 : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.return %r : !relax.tensor<[n], f32>
// CHECK-NOT:     relax.dataflow
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a, %b = relax.dataflow -> (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>) {
    %lv0 = relax.exp %x : (!relax.tensor<[n], f32>)
    %lv1 = relax.negative %lv0 : (!relax.tensor<[n], f32>)
    relax.output %lv1, %lv0 : !relax.tensor<[n], f32>, !relax.tensor<[n], f32>
  }
  %r = relax.add %a, %b : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %r : !relax.tensor<[n], f32>
}
