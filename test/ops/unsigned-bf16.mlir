// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// RUN: relax-opt %s --split-input-file -p relax-legalize-ops | relax-opt --split-input-file | filecheck %s --check-prefix=TIR
// The unsigned integer types (MLIR's ui8 ... ui64) and bf16: spelled, deduced and
// legalized to the unsigned arith ops; the legalized text parses back.

// CHECK-LABEL: relax.func @types(%a: !relax.tensor<[n], ui8>, %b: !relax.tensor<[n, 2], ui16>, %c: !relax.tensor<ndim=1, ui32>, %d: !relax.tensor<*, ui64>, %e: !relax.tensor<[n], bf16>, %k: !relax.prim<ui8, k>)
// CHECK-NEXT:    %big = relax.const dense<[18446744073709551615, 0]> : !relax.tensor<[2], ui64>
// CHECK-NEXT:    %half = relax.const dense<[1.500000e+00, 0x7fc0, 0xff80, -0.000000e+00]> : !relax.tensor<[4], bf16>
// CHECK-NEXT:    relax.add {{.*}} -> !relax.tensor<[n], ui8>
// CHECK-NEXT:    relax.less {{.*}} -> !relax.tensor<[n], i1>
// CHECK-NEXT:    relax.astype {{.*}} {dtype = bf16} {{.*}} -> !relax.tensor<[n], bf16>
// CHECK-NEXT:    relax.mean {{.*}} -> !relax.tensor<[], bf16>
// CHECK-NEXT:    relax.sum {{.*}} -> !relax.tensor<[], ui64>
relax.func @types(%a: !relax.tensor<[n], ui8>, %b: !relax.tensor<[n, 2], ui16>, %c: !relax.tensor<ndim=1, ui32>, %d: !relax.tensor<*, ui64>, %e: !relax.tensor<[n], bf16>, %k: !relax.prim<ui8, k>) -> !relax.tensor<[n], ui8> {
  %big = relax.const dense<[18446744073709551615, 0]> : !relax.tensor<[2], ui64>
  %half = relax.const dense<[1.5, 0x7FC0, 0xFF80, -0.0]> : !relax.tensor<[4], bf16>
  %s = relax.add %a, %a : (!relax.tensor<[n], ui8>, !relax.tensor<[n], ui8>)
  %l = relax.less %a, %a : (!relax.tensor<[n], ui8>, !relax.tensor<[n], ui8>)
  %f = relax.astype %a {dtype = bf16} : (!relax.tensor<[n], ui8>)
  %m = relax.mean %e : (!relax.tensor<[n], bf16>)
  %t = relax.sum %big : (!relax.tensor<[2], ui64>)
  relax.return %s : !relax.tensor<[n], ui8>
}

// -----

// Division, remainder, comparison and extrema of unsigned integers are the unsigned
// arith ops; power is tir.powui (math.ipowi is signless); a constant of an unsigned
// type is the signless constant of its bits, bitcast (arith.constant is signless).
// TIR-LABEL: tir.prim_func @divide(%x0: !tir.buffer<[n], ui32>, %x1: !tir.buffer<[n], ui32>, %out: !tir.buffer<[n], ui32>)
// TIR:         arith.divui %{{.*}}, %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @fmod
// TIR:         arith.remui %{{.*}}, %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @less
// TIR:         arith.cmpi ult, %{{.*}}, %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @maximum
// TIR:         arith.maxui %{{.*}}, %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @power
// TIR:         tir.powui %{{.*}}, %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @negative
// TIR:         %[[BITS:.*]] = arith.constant 0 : i32
// TIR-NEXT:    %[[ZERO:.*]] = arith.bitcast %[[BITS]] : i32 to ui32
// TIR-NEXT:    arith.subi %[[ZERO]], %{{.*}} : ui32
// TIR-LABEL: tir.prim_func @max
// TIR:         %[[LOWEST:.*]] = arith.constant 0 : i32
// TIR-NEXT:    arith.bitcast %[[LOWEST]] : i32 to ui32
relax.func @unsigned(%a: !relax.tensor<[n], ui32>, %b: !relax.tensor<[n], ui32>) -> !relax.tensor<[n], ui32> {
  %q = relax.divide %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], ui32>)
  %r = relax.fmod %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], ui32>)
  %l = relax.less %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], ui32>)
  %x = relax.maximum %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], ui32>)
  %p = relax.power %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], ui32>)
  %g = relax.negative %a : (!relax.tensor<[n], ui32>)
  %m = relax.max %a : (!relax.tensor<[n], ui32>)
  relax.return %q : !relax.tensor<[n], ui32>
}

// -----

// Casts: unsigned to float and float to unsigned are uitofp and fptoui, the other
// signedness of one width a bitcast, widening an unsigned integer extui, f32 to bf16
// truncf.
// TIR-LABEL: tir.prim_func @astype(
// TIR:         arith.uitofp %{{.*}} : ui8 to f32
// TIR-LABEL: tir.prim_func @astype1(
// TIR:         arith.fptoui %{{.*}} : f32 to ui16
// TIR-LABEL: tir.prim_func @astype2(
// TIR:         arith.bitcast %{{.*}} : i32 to ui32
// TIR-LABEL: tir.prim_func @astype3(
// TIR:         arith.extui %{{.*}} : ui8 to i64
// TIR-LABEL: tir.prim_func @astype4(
// TIR:         arith.truncf %{{.*}} : f32 to bf16
relax.func @casts(%a: !relax.tensor<[n], ui8>, %f: !relax.tensor<[n], f32>, %i: !relax.tensor<[n], i32>) -> !relax.tensor<[n], f32> {
  %0 = relax.astype %a {dtype = f32} : (!relax.tensor<[n], ui8>)
  %1 = relax.astype %f {dtype = ui16} : (!relax.tensor<[n], f32>)
  %2 = relax.astype %i {dtype = ui32} : (!relax.tensor<[n], i32>)
  %3 = relax.astype %a {dtype = i64} : (!relax.tensor<[n], ui8>)
  %4 = relax.astype %f {dtype = bf16} : (!relax.tensor<[n], f32>)
  relax.return %0 : !relax.tensor<[n], f32>
}

// -----

// bf16 is computed in f32 and each bf16 result rounded once: the operands widened
// (exactly), the f32 kernel, the result truncated; an f32 result is not rounded.
// TIR-LABEL: tir.prim_func @multiply(%x0: !tir.buffer<[n], bf16>, %x1: !tir.buffer<[n], bf16>, %out_bf16: !tir.buffer<[n], bf16>)
// TIR:         arith.extf %{{.*}} : bf16 to f32
// TIR:         arith.extf %{{.*}} : bf16 to f32
// TIR:         arith.mulf %{{.*}}, %{{.*}} : f32
// TIR:         arith.truncf %{{.*}} : f32 to bf16
// TIR-LABEL: tir.prim_func @astype(%x0: !tir.buffer<[n], bf16>, %out: !tir.buffer<[n], f32>)
// TIR-NOT:     arith.truncf
// TIR-LABEL: relax.func @bf16
relax.func @bf16(%a: !relax.tensor<[n], bf16>, %b: !relax.tensor<[n], bf16>) -> !relax.tensor<[n], f32> {
  %p = relax.multiply %a, %b : (!relax.tensor<[n], bf16>, !relax.tensor<[n], bf16>)
  %f = relax.astype %p {dtype = f32} : (!relax.tensor<[n], bf16>)
  relax.return %f : !relax.tensor<[n], f32>
}
