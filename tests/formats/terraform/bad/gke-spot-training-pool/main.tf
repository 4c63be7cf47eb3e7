provider "google" {
  region = "europe-west4"
}

# A training pool on Spot VMs; nothing says its jobs checkpoint.
# gpulint.dev/profile: training
resource "google_container_node_pool" "train" {
  name     = "train-a100"
  cluster  = "research"
  location = "europe-west4-a"

  autoscaling {
    min_node_count = 0
    max_node_count = 1
  }

  node_config {
    machine_type = "a2-highgpu-1g" # expect: GL301
    spot         = true            # expect: GL202
  }
}
