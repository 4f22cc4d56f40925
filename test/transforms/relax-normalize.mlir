// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s

// Omitted result types are deduced at parse time; written ones that are less specific
// are refined, and the refinement propagates to later ops and to region results.
// CHECK-LABEL: relax.func @refine
// CHECK-NEXT:    %0 = relax.dataflow -> !relax.tensor<[n, 4], f32> {
// CHECK-NEXT:      %a = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:      %b = relax.add %a, %y : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:      %s = relax.shape_of %b : (!relax.tensor<[n, 4], f32>) -> !relax.shape<[n, 4]>
// CHECK-NEXT:      relax.output %b : !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    relax.return %0 : !relax.tensor<[n, 4], f32>
relax.func @refine(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[4], f32>) -> !relax.tensor<*, ?> {
  %0 = relax.dataflow -> !relax.tensor<*, ?> {
    %a = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<*, f32>
    %b = relax.add %a, %y : (!relax.tensor<*, f32>, !relax.tensor<[4], f32>) -> !relax.tensor<*, ?>
    %s = relax.shape_of %b : (!relax.tensor<*, ?>) -> !relax.shape<*>
    relax.output %b : !relax.tensor<*, ?>
  }
  relax.return %0 : !relax.tensor<*, ?>
}

// -----

// Branches with the same type refine the if's result; the signature is kept.
// CHECK-LABEL: relax.func @branches
// CHECK-NEXT:    %r = relax.if %c -> !relax.tensor<[n], f32> {
// CHECK:         relax.return %r : !relax.tensor<[n], f32>
relax.func @branches(%c: !relax.tensor<[], i1>, %x: !relax.tensor<[n], f32>) -> !relax.object {
  %r = relax.if %c -> !relax.object {
    relax.yield %x : !relax.tensor<[n], f32>
  } else {
    relax.yield %x : !relax.tensor<[n], f32>
  }
  relax.return %r : !relax.object
}
