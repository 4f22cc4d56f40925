// RUN: not relax-opt %s 2>&1 | filecheck %s
// A value used as another type than an operator deduced: the message names the
// operator and where it is; the broadcast explanation (the operand dims it could not
// relate) only for an operator whose operands broadcast, not a convolution's.

// CHECK: error: %c is used as !relax.tensor<ndim=3, f32>, but it is !relax.tensor<[2, 4, 1], f32> (the result of relax.conv1d at 8:3){{$}}
relax.func @main(%x: !relax.tensor<[2, 3, 1], f32>, %w: !relax.tensor<[4, 3, 1], f32>) -> !relax.tensor<ndim=3, f32> {
  %c = relax.conv1d %x, %w : (!relax.tensor<[2, 3, 1], f32>, !relax.tensor<[4, 3, 1], f32>)
  relax.return %c : !relax.tensor<ndim=3, f32>
}
