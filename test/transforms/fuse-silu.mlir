// The pass of docs/writing-a-pass.md, loaded from a plugin file: x * sigmoid(x) -> silu(x).
// RUN: relax-opt %s --split-input-file --load-pass-plugin %S/Inputs/fuse_silu.py -p fuse-silu | filecheck %s

// The product becomes one silu; the sigmoid, now unused, is erased.
// CHECK-LABEL: relax.func @fuse
// CHECK-NEXT:    %y = relax.silu %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.return %y : !relax.tensor<[n, 4], f32>
relax.func @fuse(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %s = relax.sigmoid %x : (!relax.tensor<[n, 4], f32>)
  %y = relax.multiply %x, %s : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>)
  relax.return %y : !relax.tensor<[n, 4], f32>
}

// -----

// Either operand order, inside a dataflow region; a sigmoid still used stays.
// CHECK-LABEL: relax.func @kept_sigmoid
// CHECK:         %s = relax.sigmoid %x
// CHECK-NEXT:    %y = relax.silu %x
// CHECK-NEXT:    %z = relax.add %y, %s
relax.func @kept_sigmoid(%x: !relax.tensor<[8], f32>) -> !relax.tensor<[8], f32> {
  %r = relax.dataflow -> !relax.tensor<[8], f32> {
    %s = relax.sigmoid %x : (!relax.tensor<[8], f32>)
    %y = relax.multiply %s, %x : (!relax.tensor<[8], f32>, !relax.tensor<[8], f32>)
    %z = relax.add %y, %s : (!relax.tensor<[8], f32>, !relax.tensor<[8], f32>)
    relax.output %z : !relax.tensor<[8], f32>
  }
  relax.return %r : !relax.tensor<[8], f32>
}

// -----

// The sigmoid of another value, or a product whose written type is less specific
// than silu's, is left alone.
// CHECK-LABEL: relax.func @not_silu
// CHECK-NEXT:    %s = relax.sigmoid %y
// CHECK-NEXT:    %a = relax.multiply %x, %s
// CHECK-NEXT:    %t = relax.sigmoid %x
// CHECK-NEXT:    %b = relax.multiply %x, %t {{.*}} -> !relax.tensor<ndim=1, f32>
relax.func @not_silu(%x: !relax.tensor<[4], f32>, %y: !relax.tensor<[4], f32>) -> !relax.tensor<ndim=1, f32> {
  %s = relax.sigmoid %y : (!relax.tensor<[4], f32>)
  %a = relax.multiply %x, %s : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %t = relax.sigmoid %x : (!relax.tensor<[4], f32>)
  %b = relax.multiply %x, %t : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<ndim=1, f32>
  %c = relax.add %a, %b : (!relax.tensor<[4], f32>, !relax.tensor<ndim=1, f32>)
  relax.return %c : !relax.tensor<ndim=1, f32>
}
