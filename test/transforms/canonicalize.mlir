// RUN: relax-opt %s --split-input-file -p canonicalize | filecheck %s
// The operators' canonicalization patterns, run by the stock canonicalize pass.

// Operators that change nothing fold to their operand.
// CHECK-LABEL: relax.func @identities
// CHECK-NEXT:    relax.return %x : !relax.tensor<[n, 4], f32>
relax.func @identities(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %s = relax.shape [n, 4]
  %a = relax.reshape %x, %s : (!relax.tensor<[n, 4], f32>, !relax.shape<[n, 4]>)
  %b = relax.permute_dims %a {axes = array<i64: 0, 1>} : (!relax.tensor<[n, 4], f32>)
  %c = relax.astype %b {dtype = f32} : (!relax.tensor<[n, 4], f32>)
  %d = relax.squeeze %c {axis = array<i64>} : (!relax.tensor<[n, 4], f32>)
  relax.return %d : !relax.tensor<[n, 4], f32>
}

// -----

// Reshape of reshape, permute of permute.
// CHECK-LABEL: relax.func @compositions
// CHECK-NEXT:    %s2 = relax.shape [n * 4]
// CHECK-NEXT:    %b = relax.reshape %x, %s2
// CHECK-NEXT:    %d = relax.permute_dims %y {axes = array<i64: 2, 0, 1>}
relax.func @compositions(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[n, 3, 4], f32>) -> !relax.tuple<!relax.tensor<[n * 4], f32>, !relax.tensor<[4, n, 3], f32>> {
  %s1 = relax.shape [n, 2, 2]
  %a = relax.reshape %x, %s1 : (!relax.tensor<[n, 4], f32>, !relax.shape<[n, 2, 2]>)
  %s2 = relax.shape [n * 4]
  %b = relax.reshape %a, %s2 : (!relax.tensor<[n, 2, 2], f32>, !relax.shape<[n * 4]>)
  %c = relax.permute_dims %y {axes = array<i64: 1, 0, 2>} : (!relax.tensor<[n, 3, 4], f32>)
  %d = relax.permute_dims %c {axes = array<i64: 2, 1, 0>} : (!relax.tensor<[3, n, 4], f32>)
  %t = relax.tuple %b, %d : (!relax.tensor<[n * 4], f32>, !relax.tensor<[4, n, 3], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[n * 4], f32>, !relax.tensor<[4, n, 3], f32>>
}

// -----

// Neutral constants: x + 0, 1 * x, x / 1 fold; a zero that broadcasts x does not.
// CHECK-LABEL: relax.func @neutral
// CHECK-NEXT:    %zero2 = relax.const
// CHECK-NEXT:    %e = relax.add %x, %zero2
// CHECK-NEXT:    relax.return %e
relax.func @neutral(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[2, 4], f32> {
  %zero = relax.const dense<0.0> : !relax.tensor<[4], f32>
  %one = relax.const dense<1.0> : !relax.tensor<[], f32>
  %a = relax.add %x, %zero : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %b = relax.multiply %one, %a : (!relax.tensor<[], f32>, !relax.tensor<[4], f32>)
  %c = relax.divide %b, %one : (!relax.tensor<[4], f32>, !relax.tensor<[], f32>)
  %d = relax.subtract %c, %zero : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %zero2 = relax.const dense<0.0> : !relax.tensor<[2, 4], f32>
  %e = relax.add %d, %zero2 : (!relax.tensor<[4], f32>, !relax.tensor<[2, 4], f32>)
  relax.return %e : !relax.tensor<[2, 4], f32>
}

// -----

// A reshape whose element count is not proven kept (its kernel checks it at run time):
// neither folded into the next reshape nor dropped as an identity.
// CHECK-LABEL: relax.func @unproven_reshape
// CHECK:         %a = relax.reshape %x, %s1
// CHECK:         %b = relax.reshape %a, %s2
relax.func @unproven_reshape(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[m], f32>) -> !relax.tensor<[n * m], f32> {
  %s1 = relax.shape [m, n] : !relax.shape<[m, n]>
  %a = relax.reshape %x, %s1 : (!relax.tensor<[n, 4], f32>, !relax.shape<[m, n]>)
  %s2 = relax.shape [n * m] : !relax.shape<[n * m]>
  %b = relax.reshape %a, %s2 : (!relax.tensor<[m, n], f32>, !relax.shape<[n * m]>)
  relax.return %b : !relax.tensor<[n * m], f32>
}
