// Starts Swagger UI on /docs (kept out of the page so no inline script is needed).
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui" });
