module @jit_callbacks attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<[], device_ids=[0]>, stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}, sym_name = "maximal_mesh_0"} : () -> ()
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<4xf32>) -> (!stablehlo.token {jax.token = true}, tensor<4xf32> {jax.result_info = "result[0]"}, tensor<0xf32> {jax.result_info = "result[1]"}) {
    %0 = "stablehlo.create_token"() : () -> !stablehlo.token
    %1 = "stablehlo.send"(%arg1, %0) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "2"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %2:2 = "stablehlo.recv"(%1) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 3>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "3"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>, <@maximal_mesh_0, []>]>} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %3 = "stablehlo.send"(%2#0, %arg0) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 2>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "4"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %4:2 = "stablehlo.recv"(%3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "5"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>, <@maximal_mesh_0, []>]>} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %5 = "stablehlo.constant"() {value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>
    %6 = "stablehlo.create_token"() : () -> !stablehlo.token
    %7 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<1xf32>} : () -> tensor<1xf32>
    %8 = "stablehlo.send"(%7, %6) {channel_handle = #stablehlo.channel_handle<handle = 6, type = 2>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "6"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<1xf32>, !stablehlo.token) -> !stablehlo.token
    %9:2 = "stablehlo.recv"(%8) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "7"}, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>, <@maximal_mesh_0, []>]>} : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    return %4#1, %4#0, %5 : !stablehlo.token, tensor<4xf32>, tensor<0xf32>
  }
}

