// A small convolutional network with a symbolic batch size n: two 3x3 convolutions
// with ReLU and 2x2 max pooling, then a linear classifier over 28x28 inputs.
builtin.module {
  relax.func @main(%x: !relax.tensor<[n, 1, 28, 28], f32>, %k1: !relax.tensor<[8, 1, 3, 3], f32>, %c1: !relax.tensor<[8, 1, 1], f32>, %k2: !relax.tensor<[16, 8, 3, 3], f32>, %c2: !relax.tensor<[16, 1, 1], f32>, %w: !relax.tensor<[784, 10], f32>, %b: !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32> {
    %out = relax.dataflow -> !relax.tensor<[n, 10], f32> {
      %0 = relax.conv2d %x, %k1 {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 1, 28, 28], f32>, !relax.tensor<[8, 1, 3, 3], f32>)
      %1 = relax.add %0, %c1 : (!relax.tensor<[n, 8, 28, 28], f32>, !relax.tensor<[8, 1, 1], f32>)
      %2 = relax.relu %1 : (!relax.tensor<[n, 8, 28, 28], f32>)
      %3 = relax.max_pool2d %2 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (!relax.tensor<[n, 8, 28, 28], f32>)
      %4 = relax.conv2d %3, %k2 {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 8, 14, 14], f32>, !relax.tensor<[16, 8, 3, 3], f32>)
      %5 = relax.add %4, %c2 : (!relax.tensor<[n, 16, 14, 14], f32>, !relax.tensor<[16, 1, 1], f32>)
      %6 = relax.relu %5 : (!relax.tensor<[n, 16, 14, 14], f32>)
      %7 = relax.max_pool2d %6 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (!relax.tensor<[n, 16, 14, 14], f32>)
      %shape = relax.shape [n, 784]
      %8 = relax.reshape %7, %shape : (!relax.tensor<[n, 16, 7, 7], f32>, !relax.shape<[n, 784]>)
      %9 = relax.matmul %8, %w : (!relax.tensor<[n, 784], f32>, !relax.tensor<[784, 10], f32>)
      %10 = relax.add %9, %b : (!relax.tensor<[n, 10], f32>, !relax.tensor<[10], f32>)
      relax.output %10 : !relax.tensor<[n, 10], f32>
    }
    relax.return %out : !relax.tensor<[n, 10], f32>
  }
}
