resource "azurerm_kubernetes_cluster" "main" {
  name                = "serving"
  location            = "Sweden Central"
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

# Interactive chat on Spot VMs with nothing on regular capacity beside them.
# gpulint.dev/profile: inference
# gpulint.dev/latency-sensitive: "true"
resource "azurerm_kubernetes_cluster_node_pool" "a100" {
  name                  = "a100"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = "standard_nc24ads_a100_v4" # expect: GL301
  auto_scaling_enabled  = true
  min_count             = 1
  max_count             = 4
  priority              = "Spot" # expect: GL204
  eviction_policy       = "Delete"
  spot_max_price        = -1
}
