//! The rmcp handler: each method of the protocol to [`Served`], run on
//! the runtime's blocking pool so that reading and hashing files never
//! holds up the transport (a panic there is one failed request, not a
//! dead server).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    Implementation, JsonObject, ListPromptsResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

use crate::served::Served;

/// The methods this server answers: a request of one of them that rmcp
/// could not read is a bad request, not an unknown method.
const KNOWN: &[&str] = &[
    "initialize",
    "ping",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/directory/read",
    "skills/list",
    "skills/get",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "tools/call",
];

/// The name of the tool that reads a skill's file.
pub const READ_SKILL: &str = "read_skill";

/// `skillpipe mcp`'s handler.
#[derive(Clone)]
pub struct SkillServer {
    served: Arc<Served>,
    config: Arc<ServerConfig>,
}

impl SkillServer {
    /// The handler of `served`; its `instructions` are rendered once, here.
    pub fn new(served: Served) -> SkillServer {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .enable_skills_with_directory_read()
            .build();
        let config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillpipe", env!("CARGO_PKG_VERSION")))
            .with_instructions(served.instructions());
        SkillServer {
            served: Arc::new(served),
            config: Arc::new(config),
        }
    }

    /// Runs `job` on the blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Served) -> Result<T, ErrorData> + Send + 'static,
    ) -> Result<T, ErrorData> {
        let served = Arc::clone(&self.served);
        tokio::task::spawn_blocking(move || job(&served))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the request failed: {e}"), None))?
    }
}

fn cursor(request: Option<PaginatedRequestParams>) -> Option<String> {
    request.and_then(|r| r.cursor)
}

/// The `read_skill` tool as `tools/list` shows it.
pub(crate) fn read_skill_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "uri": {
                "type": "string",
                "description": "A skill:// URI: skill://<name>/SKILL.md, a file of the skill \
                    (skill://<name>/<path>), or a folder of it"
            }
        },
        "required": ["uri"],
        "additionalProperties": false
    });
    let schema: JsonObject = match schema {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(
        READ_SKILL,
        "Read a skill's file: its SKILL.md (the instructions; read it before acting on a task \
         the skill's description matches) or a file it refers to, by skill:// URI; a relative \
         path in a skill resolves against skill://<name>/. Text only, at most 1 MiB; a folder \
         gives the URIs of its entries.",
        schema,
    )
    .annotate(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

impl ServerHandler for SkillServer {
    fn get_info(&self) -> ServerConfig {
        (*self.config).clone()
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = cursor(request);
        self.blocking(move |s| s.list_skills(cursor.as_deref()))
            .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.blocking(move |s| s.get_skill(&request.uri)).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.blocking(move |s| s.read_directory(&request.uri, request.cursor.as_deref()))
            .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = cursor(request);
        self.blocking(move |s| s.list_resources(cursor.as_deref()))
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.blocking(move |s| s.read_resource(&request.uri))
            .await
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let cursor = cursor(request);
        self.blocking(move |s| s.list_prompts(cursor.as_deref()))
            .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.blocking(move |s| s.get_prompt(&request.name, request.arguments.as_ref()))
            .await
            .map(Into::into)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![read_skill_tool()]))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let shown: String = request.method.chars().take(100).collect();
        // rmcp hands a known method whose params it could not read here.
        if KNOWN.contains(&request.method.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("the params of `{shown}` are not what the method takes"),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("unknown method `{shown}`"),
            None,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != READ_SKILL {
            let shown: String = request.name.chars().take(100).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{shown}` (tools/list shows {READ_SKILL})"),
                None,
            ));
        }
        self.blocking(move |s| Ok(s.read_skill(request.arguments.as_ref())))
            .await
            .map(Into::into)
    }
}
