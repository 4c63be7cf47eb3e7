# The GKE node pool the serving engine selects: g2-standard-24 machines with two L4 each.
resource "google_container_node_pool" "l4" {
  name     = "l4-pool"
  cluster  = "inference"
  location = "us-central1"

  autoscaling {
    min_node_count = 0
    max_node_count = 4
  }

  node_config {
    machine_type = "g2-standard-24"
    guest_accelerator {
      type  = "nvidia-l4"
      count = 2
    }
  }
}
