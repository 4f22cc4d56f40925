// RUN: relax-opt %s --split-input-file -p relax-refine-shapes | filecheck %s

// The A0 example of the shape design: x's shape and dtype are learnt from the matched
// sum, through the add (whose other operand has the result's shape) and the log.
// CHECK-LABEL: relax.func @before(%x: !relax.tensor<[m, n], f32>, %y: !relax.tensor<[m, n], f32>) -> !relax.tensor<[m, n], ?> {
// CHECK-NEXT:    %0 = relax.dataflow -> !relax.tensor<[m, n], f32> {
// CHECK-NEXT:      %lv0 = relax.log %x : (!relax.tensor<[m, n], f32>) -> !relax.tensor<[m, n], f32>
// CHECK-NEXT:      %sum = relax.add %lv0, %y : (!relax.tensor<[m, n], f32>, !relax.tensor<[m, n], f32>) -> !relax.tensor<[m, n], f32>
// CHECK-NEXT:      %gv0 = relax.match_shape %sum [m, n] : (!relax.tensor<[m, n], f32>) -> !relax.tensor<[m, n], f32>
relax.func @before(%x: !relax.tensor<*, ?>, %y: !relax.tensor<[m, n], f32>) -> !relax.tensor<[m, n], ?> {
  %0 = relax.dataflow -> !relax.tensor<[m, n], ?> {
    %lv0 = relax.log %x : (!relax.tensor<*, ?>)
    %sum = relax.add %lv0, %y : (!relax.tensor<*, ?>, !relax.tensor<[m, n], f32>)
    %gv0 = relax.match_shape %sum [m, n] : (!relax.tensor<*, ?>)
    relax.output %gv0 : !relax.tensor<[m, n], ?>
  }
  relax.return %0 : !relax.tensor<[m, n], ?>
}

// -----

// Nothing to learn: the add broadcasts y, and k is bound only in the body, so the
// signature cannot mention it.
// CHECK-LABEL: relax.func @unchanged(%x: !relax.tensor<*, f32>, %y: !relax.tensor<[4], f32>, %w: !relax.tensor<ndim=1, f32>)
relax.func @unchanged(%x: !relax.tensor<*, f32>, %y: !relax.tensor<[4], f32>, %w: !relax.tensor<ndim=1, f32>) -> !relax.tensor<*, f32> {
  %a = relax.add %x, %y : (!relax.tensor<*, f32>, !relax.tensor<[4], f32>)
  %v = relax.match_shape %w [k] : (!relax.tensor<ndim=1, f32>)
  %b = relax.exp %v : (!relax.tensor<[k], f32>)
  relax.return %a : !relax.tensor<*, f32>
}
