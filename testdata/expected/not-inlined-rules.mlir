module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<4xf32>, %arg2: tensor<2xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}) {
    %0 = call @my_op(%arg0, %arg1) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = call @my_op(%arg0, %0) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = call @my_op_0(%arg0, %arg2) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = "stablehlo.sine"(%1) {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.custom_call"(%3) {api_version = 2 : i32, backend_config = "opaque", call_target_name = "legacy_kernel", called_computations = [], has_side_effect = false, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
    return %4, %2 : tensor<4xf32>, tensor<2xf32>
  }
  func.func private @my_op(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.case"(%arg0) ({
      %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "cpu_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%2) : (tensor<4xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "generic_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%2) : (tensor<4xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @my_op_0(%arg0: tensor<i32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.case"(%arg0) ({
      %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "cpu_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%2) : (tensor<2xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "generic_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%2) : (tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}

