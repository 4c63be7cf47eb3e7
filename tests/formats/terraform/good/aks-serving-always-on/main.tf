resource "azurerm_kubernetes_cluster" "main" {
  name                = "serving"
  location            = "swedencentral"
  resource_group_name = "rg-serving"
  dns_prefix          = "serving"

  default_node_pool {
    name       = "system"
    vm_size    = "Standard_D4s_v5"
    node_count = 2
  }

  identity {
    type = "SystemAssigned"
  }
}

# gpulint.dev/profile: inference
# gpulint.dev/latency-sensitive: "true"
# gpulint.dev/always-on: customer-facing chat with a 24x7 response-time objective
resource "azurerm_kubernetes_cluster_node_pool" "a100" {
  name                  = "a100"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = true
  min_count             = 1
  max_count             = 4
  priority              = "Regular"
}
