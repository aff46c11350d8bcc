//! The rmcp handler: each method of the protocol to [`Served`], run on
//! the runtime's blocking pool so that reading and hashing files never
//! holds up the transport (a panic there is one failed request, not a
//! dead server).
//!
//! The discovery served can be swapped ([`SkillServer::swap`]) while
//! clients are connected: a request answers from the discovery current
//! when it arrived, and every client that finished its handshake is sent
//! `notifications/resources/list_changed` and
//! `notifications/prompts/list_changed` ([`SkillServer::notify_changed`]).

use std::sync::{Arc, Mutex, RwLock};

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, DiscoverResult,
    ErrorCode, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::model::{ClientNotification, ClientRequest, ProtocolVersion, ServerResult, Skill};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, SubscriptionContext, SubscriptionSendError,
    SubscriptionSink,
};
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

/// The name of the tool that finds skills for a task.
pub const SEARCH_SKILLS: &str = "search_skills";

/// The most clients told of changes at once (HTTP sessions; stdio has
/// one): past it, the ones that went away are dropped first, then the
/// oldest.
const MAX_PEERS: usize = 1024;

/// `skillpipe mcp`'s handler. Clones share the discovery and the clients.
#[derive(Clone)]
pub struct SkillServer {
    state: Arc<State>,
}

/// The entries of a `skills/list` page, held beside rmcp while it handles
/// the request. rmcp checks every entry of every page a `ServerHandler`
/// answers (each name's NFKC form against its URI, a normalised key of
/// each file's URI, no URI twice): about 3% of the CPU of a first
/// listing of 10,000 skills and 7% of a warm one's, all on the one thread
/// that also writes the answers. The entries are valid by how they are
/// made (the URI from the name, every file once under it, `sha256:`
/// digests; `Served` refuses a name rmcp would), so served as a
/// [`SkillService`], [`SkillServer::list_skills`] hands rmcp the page
/// without them and the service puts them back; debug builds (so every
/// test) still run rmcp's check on them.
#[derive(Clone, Default)]
struct Held(Arc<Mutex<Option<Vec<Skill>>>>);

impl Held {
    fn keep(&self, skills: Vec<Skill>) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(skills);
    }

    fn take(&self) -> Option<Vec<Skill>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

struct State {
    served: RwLock<Arc<Served>>,
    /// The clients that finished their handshake, told of every change.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// The `subscriptions/listen` streams open (protocol 2026-07-28,
    /// which has no handshake), told of the changes they asked for.
    sinks: Mutex<Vec<SubscriptionSink>>,
    /// Set when the client's input ended: open `subscriptions/listen`
    /// requests end then, or rmcp would wait for them before it stops.
    closing: tokio::sync::watch::Sender<bool>,
}

impl SkillServer {
    /// The handler of `served`.
    pub fn new(served: Served) -> SkillServer {
        SkillServer {
            state: Arc::new(State {
                served: RwLock::new(Arc::new(served)),
                peers: Mutex::new(Vec::new()),
                sinks: Mutex::new(Vec::new()),
                closing: tokio::sync::watch::Sender::new(false),
            }),
        }
    }

    /// The discovery served now.
    pub fn served(&self) -> Arc<Served> {
        match self.state.served.read() {
            Ok(served) => Arc::clone(&served),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Serves `served` from now on (requests under way finish with the
    /// discovery they started with).
    pub fn swap(&self, served: Served) {
        let served = Arc::new(served);
        match self.state.served.write() {
            Ok(mut current) => *current = served,
            Err(poisoned) => *poisoned.into_inner() = served,
        }
    }

    /// The client's input ended: the subscriptions still listening end.
    pub fn input_closed(&self) {
        self.state.closing.send_replace(true);
    }

    /// How many clients are told of changes.
    pub fn clients(&self) -> usize {
        self.peers().len() + self.sinks().len()
    }

    fn sinks(&self) -> std::sync::MutexGuard<'_, Vec<SubscriptionSink>> {
        self.state
            .sinks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn peers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.state
            .peers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends `notifications/resources/list_changed` and
    /// `notifications/prompts/list_changed` to every client; one that
    /// went away is forgotten.
    pub async fn notify_changed(&self) {
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.peers();
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            let sent = async {
                peer.notify_resource_list_changed().await?;
                peer.notify_prompt_list_changed().await
            };
            if let Err(e) = sent.await {
                tracing::debug!("a client was not told of the change: {e}");
            }
        }
        let sinks: Vec<SubscriptionSink> = self.sinks().clone();
        let mut closed = Vec::new();
        for sink in sinks {
            // A sink sends only what its client asked for (and refuses the
            // rest, which is no failure).
            for sent in [
                sink.notify_resource_list_changed().await,
                sink.notify_prompt_list_changed().await,
            ] {
                match sent {
                    Ok(()) | Err(SubscriptionSendError::NotificationNotAccepted(_)) => {}
                    Err(e) => {
                        tracing::debug!("a subscription was not told of the change: {e}");
                        closed.push(sink.id().clone());
                        break;
                    }
                }
            }
        }
        if !closed.is_empty() {
            self.sinks().retain(|s| !closed.contains(s.id()));
        }
    }

    /// Runs `job` on the blocking pool, on the discovery current now.
    async fn blocking<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Arc<Served>) -> Result<T, ErrorData> + Send + 'static,
    ) -> Result<T, ErrorData> {
        let served = self.served();
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

/// The `search_skills` tool as `tools/list` shows it.
pub(crate) fn search_skills_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 1000,
                "description": "What the task is about, in a few words (pdf forms, review a pull request)"
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": crate::served::MAX_SEARCH,
                "default": 10,
                "description": "The most skills returned"
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let schema: JsonObject = match schema {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(
        SEARCH_SKILLS,
        "Find the skills that match a task: the best matches first, each with its name, \
         description and the skill:// URI of its SKILL.md (read it with read_skill before \
         acting on the task).",
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
    /// What this server is and can do, without its `instructions`: rmcp
    /// asks for it before every `skills/*` request (to check the
    /// capability), and the instructions of a large library are a
    /// catalogue of megabytes, which a listing of 10,000 skills copied
    /// once a page. `initialize` and `discover` add them.
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_skills_with_directory_read()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillpipe", env!("CARGO_PKG_VERSION")))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        result.instructions = Some(self.served().instructions().to_owned());
        Ok(result)
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        result.instructions = Some(self.served().instructions().to_owned());
        Ok(result)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.resources_list_changed = requested.resources_list_changed;
        accepted.prompts_list_changed = requested.prompts_list_changed;
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let id = context.sink().id().clone();
        {
            let mut sinks = self.sinks();
            if sinks.len() >= MAX_PEERS {
                sinks.remove(0);
            }
            sinks.push(context.sink().clone());
        }
        let mut closing = self.state.closing.subscribe();
        tokio::select! {
            () = context.cancelled() => {}
            _ = closing.wait_for(|closed| *closed) => {}
        }
        self.sinks().retain(|s| s.id() != &id);
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self.peers();
        if peers.len() >= MAX_PEERS {
            peers.retain(|p| !p.is_transport_closed());
        }
        if peers.len() >= MAX_PEERS {
            peers.remove(0);
        }
        peers.push(context.peer);
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = cursor(request);
        // A page made ahead and ready is given here; any other is made on
        // the blocking pool.
        let mut page = match self.served().list_skills_ready(cursor.as_deref()) {
            Some(ready) => ready?,
            None => {
                self.blocking(move |s| s.list_skills_ahead(cursor.as_deref()))
                    .await?
            }
        };
        if let Some(held) = context.extensions.get::<Held>() {
            held.keep(std::mem::take(&mut page.skills));
        }
        Ok(page)
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
        Ok(ListToolsResult::with_all_items(vec![
            read_skill_tool(),
            search_skills_tool(),
        ]))
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
        match request.name.as_ref() {
            READ_SKILL => self
                .blocking(move |s| Ok(s.read_skill(request.arguments.as_ref())))
                .await
                .map(Into::into),
            SEARCH_SKILLS => self
                .blocking(move |s| s.search_skills(request.arguments.as_ref()))
                .await
                .map(Into::into),
            other => {
                let shown: String = other.chars().take(100).collect();
                Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool `{shown}` (tools/list shows {READ_SKILL} and {SEARCH_SKILLS})"
                    ),
                    None,
                ))
            }
        }
    }
}

/// [`SkillServer`] as the service served over stdio: every request and
/// notification as its `ServerHandler` answers it, but a `skills/list`
/// page's entries are held past rmcp's check of them ([`Held`]). (rmcp's
/// HTTP service takes a `ServerHandler`: there the server's pages are
/// checked.)
#[derive(Clone)]
pub(crate) struct SkillService(pub(crate) SkillServer);

impl rmcp::Service<RoleServer> for SkillService {
    async fn handle_request(
        &self,
        request: ClientRequest,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        if !matches!(request, ClientRequest::ListSkillsRequest(_)) {
            return rmcp::Service::handle_request(&self.0, request, context).await;
        }
        let held = Held::default();
        context.extensions.insert(held.clone());
        let mut result = rmcp::Service::handle_request(&self.0, request, context).await?;
        if let ServerResult::ListSkillsResult(page) = &mut result
            && let Some(skills) = held.take()
        {
            if cfg!(debug_assertions) {
                rmcp::model::validate_skills(&skills).map_err(|e| {
                    ErrorData::internal_error(format!("an invalid skills/list page: {e}"), None)
                })?;
            }
            page.skills = skills;
        }
        Ok(result)
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        rmcp::Service::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        ServerHandler::supported_protocol_versions(&self.0)
    }
}
