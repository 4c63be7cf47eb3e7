resource "azurerm_resource_group" "chat" {
  name     = "rg-chat"
  location = "West Europe"
}

resource "azurerm_cognitive_account" "chat" {
  name                = "chat-openai"
  location            = azurerm_resource_group.chat.location
  resource_group_name = azurerm_resource_group.chat.name
  kind                = "OpenAI"
  sku_name            = "S0"
}

# gpulint.dev/personal-data: "true"
# gpulint.dev/residency: EU
# gpulint.dev/lawful-basis: consent
# gpulint.dev/transparency-notice: https://example.org/privacy
# gpulint.dev/processor-agreement: Microsoft Products and Services DPA
# gpulint.dev/acceptable-use-reviewed: "true"
resource "azurerm_cognitive_deployment" "chat" {
  name                 = "gpt-4o"
  cognitive_account_id = azurerm_cognitive_account.chat.id # expect: GL401

  model {
    format  = "OpenAI"
    name    = "gpt-4o"
    version = "2024-11-20"
  }

  sku {
    name     = "GlobalStandard"
    capacity = 50
  }
}
