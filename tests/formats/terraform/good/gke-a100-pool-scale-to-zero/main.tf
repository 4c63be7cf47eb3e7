# The serving pool scales to zero between bursts; the organisation's ledger records its quota.
provider "google" {
  project = "inference-prod"
  region  = "us-central1"
}

resource "google_container_node_pool" "serve" {
  name           = "serve-a100"
  cluster        = google_container_cluster.main.id
  location       = "us-central1"
  node_locations = ["us-central1-a", "us-central1-b"]

  autoscaling {
    min_node_count = 0
    max_node_count = 3
  }

  node_config {
    machine_type = "a2-highgpu-1g"
  }
}
