resource "google_compute_instance" "notebook" { # expect: GL201
  name         = "notebook-t4"
  machine_type = "n1-standard-8" # expect: GL301
  zone         = "us-central1-a"

  guest_accelerator {
    type  = "projects/ml-sandbox/zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4" # expect: GL007
    count = 1
  }

  scheduling {
    preemptible        = true
    automatic_restart  = false
    provisioning_model = "SPOT"
  }

  boot_disk {
    initialize_params {
      image = "deeplearning-platform-release/common-cu123"
    }
  }

  network_interface {
    network = "default"
  }
}
