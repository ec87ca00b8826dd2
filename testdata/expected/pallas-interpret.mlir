module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8xf32>
    %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %3 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %4:4 = "stablehlo.while"(%2, %3, %arg0, %1) ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<8xf32>, %arg4: tensor<8xf32>):
      %5 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      %6 = "stablehlo.compare"(%arg1, %5) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<8xf32>, %arg4: tensor<8xf32>):
      %5 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %6 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %7 = "stablehlo.compare"(%5, %6) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %8 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %9 = "stablehlo.constant"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
      %10 = "stablehlo.add"(%8, %9) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %11 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %12 = "stablehlo.select"(%7, %10, %11) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %13 = "stablehlo.dynamic_slice"(%arg3, %12) {slice_sizes = array<i64: 8>} : (tensor<8xf32>, tensor<i32>) -> tensor<8xf32>
      %14 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %15 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %16 = "stablehlo.compare"(%14, %15) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %17 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %18 = "stablehlo.constant"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
      %19 = "stablehlo.add"(%17, %18) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %20 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %21 = "stablehlo.select"(%16, %19, %20) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %22 = "stablehlo.dynamic_slice"(%arg4, %21) {slice_sizes = array<i64: 8>} : (tensor<8xf32>, tensor<i32>) -> tensor<8xf32>
      %23 = "stablehlo.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %24 = "stablehlo.broadcast_in_dim"(%23) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8xf32>
      %25 = "stablehlo.add"(%13, %24) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %26 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %27 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %28 = "stablehlo.compare"(%26, %27) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %29 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %30 = "stablehlo.constant"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
      %31 = "stablehlo.add"(%29, %30) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %32 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %33 = "stablehlo.select"(%28, %31, %32) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %34 = "stablehlo.dynamic_update_slice"(%arg3, %13, %33) : (tensor<8xf32>, tensor<8xf32>, tensor<i32>) -> tensor<8xf32>
      %35 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %36 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %37 = "stablehlo.compare"(%35, %36) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %38 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %39 = "stablehlo.constant"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
      %40 = "stablehlo.add"(%38, %39) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %41 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %42 = "stablehlo.select"(%37, %40, %41) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %43 = "stablehlo.dynamic_update_slice"(%arg4, %25, %42) : (tensor<8xf32>, tensor<8xf32>, tensor<i32>) -> tensor<8xf32>
      %44 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      %45 = "stablehlo.add"(%arg1, %44) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %46 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      %47 = "stablehlo.add"(%arg2, %46) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %48 = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
      %49 = func.call @_where(%48, %47, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %50 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      %51 = "stablehlo.compare"(%49, %50) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %52 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %53 = func.call @_where_0(%51, %52, %49) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%45, %53, %34, %43) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>) -> ()
    }) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>)
    return %4#3 : tensor<8xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = "stablehlo.convert"(%arg1) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.select"(%arg0, %0, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
}

