# A serving pool of A100 nodes in two zones that never scales below one node a zone, and no
# quota for the GPUs it may grow to.
provider "google" {
  project = "inference-prod"
  region  = var.region
}

resource "google_container_node_pool" "serve" {
  name           = "serve-a100"
  cluster        = google_container_cluster.main.id
  location       = var.region
  node_locations = ["us-central1-a", "us-central1-b"]

  autoscaling {
    min_node_count = var.min_nodes
    max_node_count = 3
  }

  node_config {
    machine_type = "a2-highgpu-1g" # expect: GL301
    labels = {
      workload = "serving"
    }
  }
}
